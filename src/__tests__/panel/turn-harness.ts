/** A transcript with one turn fed frame by frame, for the panel's specs. */
import { Widget } from '@lumino/widgets';
import { ChatModel } from '../../model/conversation/chat-model';
import { TranscriptView } from '../../panel/transcript/transcript';
import type { TurnView } from '../../panel/transcript/turn-view';
import {
  FakeTransport,
  frame,
  makeContext,
  type ITestContext
} from '../support/panel-fakes';

export interface IHarness {
  model: ChatModel;
  transport: FakeTransport;
  view: TranscriptView;
  context: ITestContext;
  push(json: Record<string, unknown>): void;
  turn(): TurnView;
}

export function harness(context: ITestContext = makeContext()): IHarness {
  const model = new ChatModel('t1');
  const transport = new FakeTransport();
  model.transport = transport;
  const view = new TranscriptView(model, context);
  Widget.attach(view, document.body);
  model.send('question');
  return {
    model,
    transport,
    view,
    context,
    push: json => transport.lastTurn.sink.frame(frame(json)),
    turn: () => view.turnView(model.entries[model.entries.length - 1].key)!
  };
}

export const tool = (args: unknown, id = 'c1', name = 'lookup') => ({
  status: 'streaming',
  tool_calls: [{ name, args, id }]
});
export const result = (
  content: unknown,
  extra: Record<string, unknown> = {}
) => ({
  status: 'streaming',
  tool_result: content,
  id: 'c1',
  name: 'lookup',
  tool_status: 'success',
  duration_ms: 1234,
  ...extra
});
