import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import type { IExtractionCard } from '../../wire/types';
import { DisplayInlineView } from './display-inline-view';
import { ReflectionView, SummaryLineView } from './extraction-summary';
import { ExtractionView } from './extraction-view';
import type {
  IItemAddress,
  IItemView,
  IItemViewContext
} from '../common/item-view';
import { TodosView } from './todos-view';

/**
 * Builds the view of an extraction of one `extracted_type`, or returns null
 * when its data is not what that type should carry (the generic card then
 * shows it, so nothing received is ever hidden).
 */
export type ExtractionRenderer = (
  context: IItemViewContext,
  address: IItemAddress,
  card: IExtractionCard
) => IItemView | null;

const summary: ExtractionRenderer = (context, _, card) =>
  SummaryLineView.create(context, card);

/** The dedicated renderers, by `extracted_type` (docs/protocol.md §2.2). */
const renderers = new Map<string, ExtractionRenderer>([
  ['todos', TodosView.create],
  ['display_inline', DisplayInlineView.create],
  ['reflection', (context, _, card) => ReflectionView.create(context, card)],
  ['skill_event', summary],
  ['skill_loaded', summary],
  ['memory_updated', summary],
  ['compression_summary', summary]
]);

/** Render extractions of `type` with `renderer` (the latest registration wins). */
export function registerExtractionRenderer(
  type: string,
  renderer: ExtractionRenderer
): IDisposable {
  const previous = renderers.get(type);
  renderers.set(type, renderer);
  return new DisposableDelegate(() => {
    if (renderers.get(type) !== renderer) {
      return;
    }
    if (previous) {
      renderers.set(type, previous);
    } else {
      renderers.delete(type);
    }
  });
}

/** The view of an extraction: its type's renderer, else the generic card. */
export function createExtractionView(
  context: IItemViewContext,
  address: IItemAddress,
  card: IExtractionCard
): IItemView {
  return (
    renderers.get(card.extractedType)?.(context, address, card) ??
    new ExtractionView(context, address)
  );
}
