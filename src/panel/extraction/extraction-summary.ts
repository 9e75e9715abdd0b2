import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import { isObject } from '../../wire/json';
import type { IExtractionCard, TranscriptItem } from '../../wire/types';
import { prettyJson } from '../common/format';
import type { IItemView, IItemViewContext } from '../common/item-view';

/**
 * One line for the extractions that report an event rather than data
 * (langstage-core's built-in extractors, docs/protocol.md §2.2), or null when the
 * data is not what that extractor produces.
 */
export function extractionSummary(
  type: string,
  data: unknown,
  trans: TranslationBundle
): string | null {
  if (!isObject(data)) {
    return null;
  }
  const d = data;
  const text = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number'
      ? String(value)
      : null;
  switch (type) {
    case 'skill_event': {
      const subtype = text(d.extracted_subtype);
      const action =
        subtype === 'skill_created'
          ? trans.__('Skill created')
          : subtype === 'skill_updated'
            ? trans.__('Skill updated')
            : subtype === 'skill_deleted'
              ? trans.__('Skill deleted')
              : trans.__('Skill %1', text(d.action) ?? trans.__('event'));
      const name = text(d.name);
      return name ? `${action}: ${name}` : action;
    }
    case 'skill_loaded': {
      const chars = typeof d.body_chars === 'number' ? d.body_chars : null;
      return chars === null
        ? trans.__('Skill loaded')
        : trans.__('Skill loaded (%1 characters)', chars.toLocaleString());
    }
    case 'memory_updated': {
      const target = text(d.target);
      const action = text(d.action);
      if (!target || !action) {
        return null;
      }
      const index = text(d.index);
      const where = index === null ? target : `${target} #${index}`;
      switch (d.extracted_subtype) {
        case 'memory_added':
          return trans.__('Memory added to %1', where);
        case 'memory_replaced':
          return trans.__('Memory replaced in %1', where);
        case 'memory_removed':
          return trans.__('Memory removed from %1', where);
        case 'memory_read':
          return trans.__('Memory read from %1', where);
        default:
          return trans.__('Memory %1: %2', action, where);
      }
    }
    case 'compression_summary': {
      if (d.skipped === true) {
        return trans.__(
          'Context compression skipped%1',
          text(d.reason) ? `: ${d.reason}` : ''
        );
      }
      const before =
        typeof d.before_tokens === 'number' ? d.before_tokens : null;
      const after = typeof d.after_tokens === 'number' ? d.after_tokens : null;
      if (before === null || after === null) {
        return trans.__('Context compressed');
      }
      return trans.__(
        'Context compressed: %1 → %2 tokens',
        before.toLocaleString(),
        after.toLocaleString()
      );
    }
    default:
      return null;
  }
}

/** An event extraction as one line; its data in the tooltip. */
export class SummaryLineView implements IItemView {
  static create(
    context: IItemViewContext,
    card: IExtractionCard
  ): SummaryLineView | null {
    const line = extractionSummary(
      card.extractedType,
      card.data,
      context.trans
    );
    return line === null ? null : new SummaryLineView(line, card);
  }

  private constructor(line: string, card: IExtractionCard) {
    const node = document.createElement('div');
    node.className = 'jp-AgentPanel-extractionLine';
    node.dataset.type = card.extractedType;
    node.textContent = line;
    node.title = prettyJson(card.data);
    this.widget = new Widget({ node });
  }

  readonly widget: Widget;

  update(_item: TranscriptItem): void {
    // The line is written once: an extraction does not change.
  }

  dispose(): void {
    this.widget.dispose();
  }
}

/** A `reflection` (a `think_tool` note): the agent's words, as text. */
export class ReflectionView implements IItemView {
  static create(
    context: IItemViewContext,
    card: IExtractionCard
  ): ReflectionView | null {
    return typeof card.data === 'string' && card.data.trim()
      ? new ReflectionView(context.trans, card.data)
      : null;
  }

  private constructor(trans: TranslationBundle, text: string) {
    const node = document.createElement('figure');
    node.className = 'jp-AgentPanel-reflection';
    const caption = document.createElement('figcaption');
    caption.textContent = trans.__('Reflection');
    const body = document.createElement('blockquote');
    body.textContent = text;
    node.append(caption, body);
    this.widget = new Widget({ node });
  }

  readonly widget: Widget;

  update(_item: TranscriptItem): void {
    // Written once: an extraction does not change.
  }

  dispose(): void {
    this.widget.dispose();
  }
}
