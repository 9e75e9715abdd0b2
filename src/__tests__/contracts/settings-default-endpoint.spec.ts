/**
 * The choices of the Settings Editor's "Default endpoint" select
 * (contracts/settings-editor.ts): the endpoints the settings define, in the
 * panel's order, and a saved name no endpoint has, marked.
 */
import { defaultEndpointChoices } from '../../contracts/settings-editor';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();
const BUILT_IN = [
  'Built-in agent (server)',
  'Notebook kernel',
  'Notebook demo (server)'
];

describe('defaultEndpointChoices', () => {
  it('offers the built-in endpoints when the user has none', () => {
    const choices = defaultEndpointChoices({}, BUILT_IN[0], trans);
    expect(choices.map(c => c.value)).toEqual(BUILT_IN);
    expect(choices.map(c => c.label)).toEqual(BUILT_IN);
  });

  it("puts the user's endpoints first, drops a disabled built-in one and an invalid entry", () => {
    const composite = {
      endpoints: [
        { name: 'Team', transport: 'http', url: 'agent-panel/agents/team/' },
        { name: 'Notebook kernel', disabled: true },
        { name: '' },
        { name: 'Notebook demo (server)', url: 'agent-panel/agents/mine/' }
      ]
    };
    expect(
      defaultEndpointChoices(composite, 'Team', trans).map(c => c.value)
    ).toEqual(['Team', 'Notebook demo (server)', 'Built-in agent (server)']);
  });

  it('keeps a saved name no endpoint has, marked, so the form shows what is saved', () => {
    const choices = defaultEndpointChoices({}, 'Gone', trans);
    expect(choices.at(-1)?.value).toBe('Gone');
    expect(choices.at(-1)?.label).toBe('Gone (no endpoint has this name)');
    expect(choices).toHaveLength(BUILT_IN.length + 1);
  });

  it('adds nothing for a value that is not a name', () => {
    expect(defaultEndpointChoices({}, undefined, trans)).toHaveLength(
      BUILT_IN.length
    );
    expect(defaultEndpointChoices('not settings', 42, trans)).toHaveLength(
      BUILT_IN.length
    );
  });
});
