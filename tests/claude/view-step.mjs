// A scripted step the mock API writes the way a model does: against the text it was
// handed, read from the request the client sent. `{name, view: {of, ...}}` takes the
// tool_result of the call `of` (a Read) in the request, strips the client's line
// numbers, and builds the call's input from that view, not from the file on disk:
//
//   Edit:  {of, file_path, line: "substring", replace: [from, to]} or {..., new: "text"}
//          old_string = the whole view line holding `line` (placeholders and all),
//          new_string = that line with `from` replaced by `to` (or `new`).
//          With `span`, old_string is only that part of the line, copied from the view.
//   Write: {of, file_path, replace: [[from, to], ...]}
//          content = the whole view, each `from` replaced by its `to`.
//
// A view that lacks what the step names is not patched over: the call goes out with a
// marker (`E2E-VIEW-MISSING`) the test looks for, so the round trip fails visibly.

/// The text the model received for the tool call `id` in `body`, or null.
export function resultText(body, id) {
  for (const m of body.messages ?? []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    const hit = m.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    if (!hit) continue;
    return typeof hit.content === 'string'
      ? hit.content
      : (hit.content ?? []).map((b) => b.text ?? '').join('\n');
  }
  return null;
}

/// The file's lines as a Read result shows them: `<spaces>N<tab or →>text`, with the
/// client's reminders after them dropped.
export function viewLines(text) {
  const body = text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '');
  const lines = [];
  for (const l of body.split('\n')) {
    const m = /^\s*(\d+)[\t\u2192](.*)$/.exec(l);
    if (m) lines.push(m[2]);
  }
  return lines;
}

/// The call `step` stands for, given the request `body`.
export function fromView(step, body) {
  const { of, file_path: filePath, line, span, replace, new: whole } = step.view;
  const text = resultText(body, of);
  const lines = text === null ? [] : viewLines(text);
  const missing = (what) => `E2E-VIEW-MISSING ${what}`;
  if (step.name === 'Write') {
    let content = lines.join('\n') + '\n';
    for (const [from, to] of replace ?? []) {
      content = content.includes(from) ? content.replace(from, to) : `${content}${missing(from)}\n`;
    }
    return { name: 'Write', id: step.id, input: { file_path: filePath, content } };
  }
  const found = lines.find((l) => l.includes(line));
  const old = span === undefined || found === undefined ? found : span;
  if (old === undefined) {
    return { name: step.name, id: step.id, input: { file_path: filePath, old_string: missing(line), new_string: 'x' } };
  }
  const next = whole ?? (old.includes(replace[0]) ? old.replace(replace[0], replace[1]) : missing(replace[0]));
  return { name: step.name, id: step.id, input: { file_path: filePath, old_string: old, new_string: next } };
}
