import {
  blocksWithin,
  linksAcrossBlocks,
  settledLength
} from '../../panel/transcript/markdown-blocks';

/** The settled blocks' text and the unsettled tail of `text`. */
function split(text: string): [string, string] {
  const end = settledLength(text);
  return [text.slice(0, end), text.slice(end)];
}

describe('settledLength', () => {
  it('settles a paragraph once a blank line and a new paragraph follow', () => {
    expect(split('One two')).toEqual(['', 'One two']);
    expect(split('One two\n\n')).toEqual(['', 'One two\n\n']);
    expect(split('One two\n\nThree')).toEqual(['One two\n\n', 'Three']);
    expect(split('One\n\nTwo\n\n\nThree\n')).toEqual([
      'One\n\nTwo\n\n\n',
      'Three\n'
    ]);
  });

  it('keeps a single line break inside the block', () => {
    expect(split('One\nTwo\nThree')).toEqual(['', 'One\nTwo\nThree']);
  });

  it('never cuts inside a fenced code block, blank lines and all', () => {
    const open = 'Run:\n\n```python\nx = 1\n\ny = 2\n';
    expect(split(open)).toEqual(['Run:\n\n', '```python\nx = 1\n\ny = 2\n']);
    const closed = `${open}\`\`\`\n\nDone`;
    expect(split(closed)).toEqual([
      'Run:\n\n```python\nx = 1\n\ny = 2\n```\n\n',
      'Done'
    ]);
  });

  it('closes a fence only with the same marker, at least as long', () => {
    const text = '````\n```\n\nstill code\n~~~\n\nmore\n````\n\nAfter';
    expect(split(text)).toEqual([text.slice(0, -'After'.length), 'After']);
    expect(split('~~~\n```\n\ncode')).toEqual(['', '~~~\n```\n\ncode']);
  });

  it('does not cut before an indented line (indented code, list continuation)', () => {
    expect(split('Text\n\n    code\n\nAfter')).toEqual([
      'Text\n\n    code\n\n',
      'After'
    ]);
    expect(split('- item\n\n  more of the item\n\nAfter')).toEqual([
      '- item\n\n  more of the item\n\n',
      'After'
    ]);
    expect(split('Text\n\n    code')).toEqual(['', 'Text\n\n    code']);
  });

  it('keeps a loose list together, but cuts before a list after prose', () => {
    expect(split('- a\n\n- b\n\n1. c')).toEqual(['', '- a\n\n- b\n\n1. c']);
    expect(split('1. a\n\n2) b\n\nText')).toEqual(['1. a\n\n2) b\n\n', 'Text']);
    expect(split('Intro:\n\n- a\n- b')).toEqual(['Intro:\n\n', '- a\n- b']);
  });

  it('waits for the rest of a line that may yet be a list item', () => {
    expect(split('- a\n\n1')).toEqual(['', '- a\n\n1']);
    expect(split('- a\n\n12.')).toEqual(['', '- a\n\n12.']);
    expect(split('- a\n\n-')).toEqual(['', '- a\n\n-']);
    expect(split('- a\n\n1999 was')).toEqual(['- a\n\n', '1999 was']);
    expect(split('Text\n\n1')).toEqual(['Text\n\n', '1']);
  });

  it('never cuts inside display math', () => {
    expect(split('$$\na\n\nb\n$$\n\nAfter')).toEqual([
      '$$\na\n\nb\n$$\n\n',
      'After'
    ]);
    expect(split('$$\na\n\nb')).toEqual(['', '$$\na\n\nb']);
    expect(split('\\begin{align}\na\n\nb')).toEqual([
      '',
      '\\begin{align}\na\n\nb'
    ]);
    expect(split('Inline $$x$$ math\n\nAfter')).toEqual([
      'Inline $$x$$ math\n\n',
      'After'
    ]);
  });

  it('does not settle leading blank lines alone', () => {
    expect(split('\n\nText')).toEqual(['', '\n\nText']);
  });

  it('resumes from an earlier result with the same answer as from the start', () => {
    const text =
      'A\n\n```\nx\n\ny\n```\n\n- a\n\n- b\n\nB\n\n$$\nm\n\nn\n$$\n\nC';
    let from = 0;
    for (let end = 1; end <= text.length; end++) {
      const whole = settledLength(text.slice(0, end));
      const resumed = settledLength(text.slice(0, end), from);
      expect(resumed).toBe(whole);
      from = resumed;
    }
    expect(text.slice(0, from)).toBe(
      'A\n\n```\nx\n\ny\n```\n\n- a\n\n- b\n\nB\n\n$$\nm\n\nn\n$$\n\n'
    );
  });
});

describe('linksAcrossBlocks', () => {
  it('finds link reference definitions', () => {
    expect(linksAcrossBlocks('See [the docs][1].\n\n[1]: https://x.org')).toBe(
      true
    );
    expect(linksAcrossBlocks('A [link](https://x.org) and [brackets]')).toBe(
      false
    );
  });
});

describe('blocksWithin', () => {
  const blocks = ['a'.repeat(30), 'b'.repeat(30), 'c'.repeat(30), 'd'];
  const text = blocks.join('\n\n');
  const start = (i: number) => blocks.slice(0, i).join('\n\n').length + 2;

  it('stops at the last boundary within the budget', () => {
    expect(blocksWithin(text, 0, start(3), 70)).toBe(start(2));
  });

  it('gives the whole range when it fits the budget', () => {
    expect(blocksWithin(text, start(1), start(3), 64)).toBe(start(3));
  });

  it('gives one block longer than the budget whole, not the range', () => {
    expect(blocksWithin(text, 0, start(3), 10)).toBe(start(1));
  });
});
