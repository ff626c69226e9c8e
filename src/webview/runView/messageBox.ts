// Under a task's transcript: a box to tell its actor something while it works (taskloom send, in
// the editor). Enter or Ctrl+Enter sends (Shift+Enter: a new line); a task with no actor turn left
// shows the box disabled, with why and what to do instead.
import type { RunState } from '../../engine/domain/runState';
import { noMessagesWords } from '../../engine/text/messageWords';
import { MAX_MESSAGE_CHARS, takesMessages } from '../../engine/domain/taskMessages';
import { h } from './dom';

export class MessageBox {
  readonly element = h('form', { class: 'message-box', 'aria-label': 'Message for the task’s agent' });
  private readonly input = h('textarea', { class: 'message-input', rows: 2, maxlength: MAX_MESSAGE_CHARS, 'aria-label': 'Message for the task’s agent' });
  private readonly send = h('vscode-button', { icon: 'send', title: 'Send (Enter)' }, 'Send');
  private readonly reason = h('p', { class: 'message-reason muted', 'aria-live': 'polite' });
  private taskId: string | undefined;

  constructor(private readonly onSend: (taskId: string, text: string) => void) {
    this.element.append(this.input, this.send, this.reason);
    this.send.addEventListener('click', () => this.submit());
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this.submit();
      }
    });
  }

  /** Shows the box for `taskId` (hidden for the run's own calls), enabled while the task can take a message. */
  render(state: RunState, taskId: string | undefined): void {
    const task = taskId === undefined ? undefined : state.tasks[taskId];
    this.element.hidden = task === undefined;
    if (!task) return;
    this.taskId = task.id;
    const open = takesMessages(task.state);
    this.input.disabled = !open;
    this.send.toggleAttribute('disabled', !open);
    this.input.placeholder = open ? `Tell ${task.id}'s agent something…` : '';
    const why = open ? '' : `No messages for ${task.id}: ${noMessagesWords(task.state)}.`;
    if (this.reason.textContent !== why && (why || this.reason.dataset.kind !== 'sent')) {
      this.reason.textContent = why;
      this.reason.dataset.kind = 'refused';
    }
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || !this.taskId || this.input.disabled) return;
    this.onSend(this.taskId, text);
    this.input.value = '';
    this.reason.textContent = `Sent to ${this.taskId}; the transcript and the ledger show when its agent hears it.`;
    this.reason.dataset.kind = 'sent';
  }
}
