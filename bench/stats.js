'use strict';
/** Median, min and max of repeated measurements, and how the tables show them. */

function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? sorted[middle]
      : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

function median(samples) {
  return summarize(samples).median;
}

/** Whether a column has figures (its turn finished, nothing timed out). */
function finished(samples) {
  return Array.isArray(samples) && samples.every(Number.isFinite);
}

/** A number with about three significant digits, thousands grouped. */
function formatNumber(value) {
  if (!Number.isFinite(value)) {
    return String(value);
  }
  const digits =
    Math.abs(value) >= 100 || value === 0 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits
  });
}

/** "median (min–max)", or the single value when every run agreed. */
function formatSummary({ median, min, max }) {
  const range =
    min === max ? '' : ` (${formatNumber(min)}–${formatNumber(max)})`;
  return `${formatNumber(median)}${range}`;
}

/** Bytes as kB (1,000 bytes), as the tables show them. */
const formatKB = bytes => formatNumber(bytes / 1000);

module.exports = {
  finished,
  formatKB,
  formatNumber,
  formatSummary,
  median,
  summarize
};
