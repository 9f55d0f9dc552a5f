// The page: a chat with the agent, and a live view of its runs (each a short story), the ledger and the external
// systems. All of it is read from the server: a reload or a restart shows the same.
const FAULTS = ['NONE', 'TIMEOUT_AFTER_EFFECT', 'FAIL_BEFORE_EFFECT', 'SLOW'];
const LABELS = {
  executed: 'executed', replayed: 'replayed', replayed_different_details: 'replayed, other details not applied',
  in_progress: 'in progress',
  previous_attempt_failed: 'previous failure', error: 'error', read: 'read (not idempotent)',
  awaiting_approval: 'awaiting approval', refused_not_approved: 'not approved',
  'executed (idempotency off)': 'executed, idempotency off'
};
// The call selected in the operator panel, kept across the page's rebuilds.
let selectedKey = null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
  children.forEach((c) => node.append(c instanceof Node ? c : document.createTextNode(String(c ?? ''))));
  return node;
}

function badge(outcome) {
  const kind = outcome.startsWith('refused') ? 'error' : outcome.split(' ')[0];
  return el('span', { class: 'badge ' + kind, 'data-outcome': outcome }, LABELS[outcome] || outcome.replace(/_/g, ' '));
}

async function api(path, body) {
  const response = await fetch('/api/' + path, body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body)
  });
  const json = await response.json();
  if (!response.ok) throw new Error(json.error || response.statusText);
  return json;
}

// How each call was answered, in a sentence: the middle of a call's story.
const ANSWERED = {
  executed: 'It ran: the tool acted once, and the ledger stored its result.',
  replayed: 'It did not run again: the ledger answered with the first call\'s result.',
  replayed_different_details: 'It did not run again: the ledger answered with the first call\'s result; the details that differ were not applied.',
  in_progress: 'It did not run: the first call\'s outcome is not known yet, and the reconciler settles it.',
  previous_attempt_failed: 'It did not run: the first attempt failed before it acted, and the model is told so.',
  awaiting_approval: 'It did not run: it waits for a person\'s approval, and the model is told so.',
  refused_not_approved: 'It did not run, and never will: a person did not approve it, and the model is told why.',
  error: 'It failed: the model read the error.',
  read: 'It ran: a read, safe to repeat, not made idempotent.',
  'executed (idempotency off)': 'It ran: idempotency was off, so nothing was recorded and nothing deduplicated.'
};

// The chat, rebuilt from the server's runs (oldest first), with the message on its way, if any.
let pending = null;
let chatShown = '';

function renderChat(runs) {
  const messages = [];
  runs.slice().reverse().forEach((run) => {
    messages.push(['user', run.transcript.request]);
    messages.push(['assistant', run.transcript.answer || '']);
  });
  if (pending) messages.push(...pending);
  const shown = JSON.stringify(messages);
  if (shown === chatShown) return;
  chatShown = shown;
  const chat = document.getElementById('chat');
  chat.replaceChildren(...messages.map(([role, text]) =>
    el('div', { class: 'msg ' + role }, (role === 'user' ? 'You: ' : 'Assistant: ') + text)));
  chat.scrollTop = chat.scrollHeight;
}

// A call's arguments as name and value, each kept whole, in the order the model wrote them.
function args(json) {
  let parsed;
  try { parsed = JSON.parse(json); } catch (e) { return el('span', { class: 'args' }, json); }
  if (parsed === null || typeof parsed !== 'object') return el('span', { class: 'args' }, json);
  return el('span', { class: 'args' }, ...Object.entries(parsed).map(([name, value]) =>
    el('span', { class: 'arg' }, el('span', { class: 'arg-name' }, name), ' ',
      el('span', { class: 'arg-value' }, typeof value === 'string' ? '"' + value + '"' : JSON.stringify(value)))));
}

// What the model read: the message a person reads first, the exact text one click away.
function modelRead(text) {
  let message = null;
  try {
    const read = JSON.parse(text);
    if (read && typeof read === 'object') message = read.message || null;
  } catch (e) { /* plain text */ }
  const exact = el('code', { class: 'exact' }, text);
  return message
    ? el('div', { class: 'read' }, el('span', { class: 'label' }, 'The model read: '), message,
        el('details', {}, el('summary', {}, 'exact text'), exact))
    : el('div', { class: 'read' }, el('span', { class: 'label' }, 'The model read: '), exact);
}

function story(call) {
  return el('li', { class: 'step', 'data-outcome': call.outcome },
    el('div', { class: 'called' }, el('span', { class: 'label' }, 'The model called '), el('b', {}, call.tool), ' ', args(call.arguments)),
    el('div', { class: 'answered' }, badge(call.outcome), ' ', ANSWERED[call.outcome] || ''),
    modelRead(call.modelRead));
}

function afterwards(kind, text) {
  return el('li', { class: 'step afterwards' }, el('div', { class: 'answered' }, badge(kind), ' ', text));
}

// Rebuilt only when they changed: an "exact text" a person opened stays open.
let runsShown = '';

function renderRuns(runs) {
  const shown = JSON.stringify(runs);
  if (shown === runsShown) return;
  runsShown = shown;
  const container = document.getElementById('runs');
  container.replaceChildren(...runs.map(({ transcript, ledger }) => {
    const steps = transcript.calls.map(story);
    ledger.filter((row) => row.reconciled).forEach((row) => steps.push(afterwards('reconciled',
      'Later, the reconciler asked the system whether ' + row.tool + ' had acted, and settled the call as ' + row.status
        + ': a repeat of it in this run is answered so.')));
    ledger.filter((row) => row.settledBy).forEach((row) => steps.push(afterwards('settled by hand',
      row.settledBy + ' settled the call as ' + row.status + ': ' + row.settleReason)));
    return el('div', { class: 'run', 'data-run': transcript.runId || '' },
      el('div', { class: 'run-title' }, 'You asked: “' + transcript.request + '”',
        el('span', { class: 'run-id' }, 'run ' + (transcript.runId || '(none)')
          + (transcript.idempotencyOff ? ', idempotency off' : ''))),
      el('ol', { class: 'story' }, ...steps),
      el('div', { class: 'run-answer' }, el('span', { class: 'label' }, 'The assistant answered: '), transcript.answer || ''));
  }));
}

function renderLedger(rows) {
  document.querySelector('#ledger tbody').replaceChildren(...rows.map((row) => el('tr', { class: 'ledger-row' },
    el('td', {}, row.runId), el('td', {}, row.tool),
    el('td', {}, row.status + (row.reconciled ? ' (reconciled)' : '') + (row.settledBy ? ' (settled by ' + row.settledBy + ')' : '')),
    el('td', {}, el('code', {}, row.arguments)), el('td', {}, el('code', {}, row.result || row.error || '')),
    el('td', {}, row.replayCount))));
}

function age(seconds) {
  if (seconds < 120) return seconds + ' s';
  if (seconds < 7200) return Math.floor(seconds / 60) + ' min';
  if (seconds < 172800) return Math.floor(seconds / 3600) + ' h';
  return Math.floor(seconds / 86400) + ' days';
}

// Unlike the other lists, rows are kept while their call waits, only their age brought up to date: a button
// replaced every 2 s under a person's pointer would lose clicks.
function renderAwaiting(calls) {
  document.getElementById('awaiting-count').textContent = calls.length;
  const tbody = document.querySelector('#awaiting tbody');
  const shown = new Map([...tbody.children].map((row) => [row.dataset.key, row]));
  const rows = calls.map((call) => {
    const row = shown.get(call.key) || el('tr', { class: 'awaiting-row', 'data-key': call.key, 'data-run': call.runId },
      el('td', {}, call.tool), el('td', {}, call.runId), el('td', {}, el('code', {}, call.arguments)),
      el('td', {}, call.error || ''), el('td', { class: 'attempts' }, ''), el('td', { class: 'age' }, ''),
      el('td', {}, el('button', { type: 'button', class: 'select-call', 'data-key': call.key }, 'Select')));
    row.querySelector('.attempts').textContent = call.attempts;
    row.querySelector('.age').textContent = age(call.ageSeconds);
    row.classList.toggle('selected', call.key === selectedKey);
    return row;
  });
  if (rows.length !== tbody.children.length || rows.some((row, i) => tbody.children[i] !== row)) {
    tbody.replaceChildren(...rows);
  }
}

// As the calls awaiting a human: rows kept while their call waits, only their age brought up to date.
function renderApprovals(calls) {
  document.getElementById('approval-count').textContent = calls.length;
  const tbody = document.querySelector('#approvals tbody');
  const shown = new Map([...tbody.children].map((row) => [row.dataset.key, row]));
  const rows = calls.map((call) => {
    const row = shown.get(call.key) || el('tr', { class: 'approval-row', 'data-key': call.key, 'data-run': call.runId },
      el('td', {}, call.tool), el('td', {}, call.runId), el('td', {}, call.userId || ''),
      el('td', {}, el('code', {}, call.arguments)), el('td', { class: 'approval-reason' }, call.reason),
      el('td', { class: 'age' }, ''),
      el('td', {}, el('button', { type: 'button', class: 'approve', 'data-decide': 'approve', 'data-key': call.key }, 'Approve'),
        ' ', el('button', { type: 'button', class: 'reject', 'data-decide': 'reject', 'data-key': call.key }, 'Reject')));
    row.querySelector('.age').textContent = age(call.ageSeconds);
    return row;
  });
  if (rows.length !== tbody.children.length || rows.some((row, i) => tbody.children[i] !== row)) {
    tbody.replaceChildren(...rows);
  }
}

// The runs a decision left to resume, each with its button; rebuilt only when they changed.
let resumableShown = '';

function renderResumable(runs) {
  document.getElementById('resumable-count').textContent = runs.length;
  const shown = JSON.stringify(runs);
  if (shown === resumableShown) return;
  resumableShown = shown;
  document.getElementById('resumable').replaceChildren(...runs.map((run) => el('li', { class: 'resumable', 'data-run': run.runId },
    run.tool + ' of run ' + run.runId + ' (for ' + (run.userId || 'no user') + ') was ' + run.decision
      + (run.decidedBy ? ' by ' + run.decidedBy : '') + (run.reason ? ': ' + run.reason : '') + ' ',
    el('button', { type: 'button', class: 'resume', 'data-run': run.runId }, 'Resume run'))));
}

function renderList(id, countId, items, text) {
  document.getElementById(countId).textContent = items.length;
  document.getElementById(id).replaceChildren(...items.map((item) => el('li', {}, text(item))));
}

function render(state) {
  renderChat(state.runs);
  renderRuns(state.runs);
  renderLedger(state.ledger);
  const r = state.replays;
  document.getElementById('replay-rate').textContent =
    r.executions + ' executions, ' + r.replays + ' replays: ' + (r.rate * 100).toFixed(1) + '% of calls answered from the ledger';
  document.getElementById('replay-warning').textContent = r.warning || '';
  renderList('tickets', 'ticket-count', state.tickets, (t) => t.id + ' ' + t.accountName + ': ' + t.issue);
  renderList('quotes', 'quote-count', state.quotes, (q) => '#' + q.id + ' ' + q.quantity + ' × ' + q.sku + ' for ' + q.accountName);
  renderList('sends', 'send-count', state.sends, (s) => s.messageId + ': quote #' + s.quoteId);
  renderList('reservations', 'reservation-count', state.reservations,
    (r) => r.id + ' ' + r.quantity + ' × ' + r.sku + ' for ' + r.accountName + ' (' + r.reference + ')');
  const switches = state.switches;
  document.getElementById('idempotency-off').checked = switches.idempotencyOff;
  Object.entries(switches.faults).forEach(([service, fault]) => {
    const select = document.getElementById('fault-' + service);
    if (document.activeElement !== select) select.value = fault;
  });
}

async function refresh() {
  try {
    const [state, awaiting, approvals, resumable] = await Promise.all([api('state'), api('settlements'),
      api('approvals'), api('approvals/resumable')]);
    render(state);
    renderAwaiting(awaiting);
    renderApprovals(approvals);
    renderResumable(resumable);
  } catch (e) { console.error(e); }
}

document.getElementById('chat-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('message');
  const message = input.value.trim() || input.placeholder;
  input.value = '';
  pending = [['user', message], ['assistant', '…']];
  chatShown = '';
  await refresh();
  try {
    await api('chat', { message });
    pending = null;
  } catch (e) {
    pending = [['user', message], ['assistant', 'Error: ' + e.message]];
  }
  chatShown = '';
  refresh();
});

document.querySelectorAll('.hint').forEach((hint) => hint.addEventListener('click', () => {
  document.getElementById('message').value = hint.textContent;
}));

document.querySelectorAll('select[data-service]').forEach((select) => {
  FAULTS.forEach((fault) => select.append(el('option', { value: fault }, fault.toLowerCase().replace(/_/g, ' '))));
  select.addEventListener('change', () => api('faults', { service: select.dataset.service, fault: select.value }).then(refresh));
});

document.getElementById('idempotency-off').addEventListener('change', (event) =>
  api('idempotency', { off: event.target.checked }).then(refresh));

document.getElementById('reconcile').addEventListener('click', async () => {
  const out = document.getElementById('reconcile-result');
  out.textContent = 'Reconciling: a call that timed out a moment ago is taken once it is stale, in a few seconds…';
  try {
    const result = await api('reconcile', {});
    out.textContent = 'Resolved ' + result.resolved + ', to be tried again ' + result.postponed
      + ', handed to a person ' + result.awaitingHuman + ', approvals expired ' + result.approvalsExpired + '. '
      + result.message;
  } catch (e) {
    out.textContent = e.message;
  }
  refresh();
});

document.querySelector('#awaiting tbody').addEventListener('click', (event) => {
  const button = event.target.closest('button.select-call');
  if (!button) return;
  selectedKey = button.dataset.key;
  document.getElementById('settle-key').value = selectedKey;
  document.querySelectorAll('#awaiting tr.awaiting-row').forEach((row) =>
    row.classList.toggle('selected', row.dataset.key === selectedKey));
});

document.querySelectorAll('button[data-settle]').forEach((button) => button.addEventListener('click', async () => {
  const out = document.getElementById('settle-message');
  const kind = button.dataset.settle;
  const key = document.getElementById('settle-key').value;
  if (!key) {
    out.className = 'refused';
    out.textContent = 'Select a call in the list first.';
    return;
  }
  const settlement = {
    operator: document.getElementById('operator').value,
    reason: document.getElementById('settle-reason').value,
    result: kind === 'succeeded' ? document.getElementById('settle-result').value : null
  };
  try {
    const settled = await api('settlements/' + encodeURIComponent(key) + '/' + kind, settlement);
    out.className = 'settled';
    out.textContent = settled.message;
    selectedKey = null;
    ['settle-key', 'settle-result', 'settle-reason'].forEach((id) => { document.getElementById(id).value = ''; });
  } catch (e) {
    out.className = 'refused';
    out.textContent = e.message;
  }
  refresh();
}));

document.querySelector('#approvals tbody').addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-decide]');
  if (!button) return;
  const out = document.getElementById('approval-message');
  const decision = {
    approver: document.getElementById('approver').value,
    reason: document.getElementById('approval-reason').value
  };
  try {
    const decided = await api('approvals/' + encodeURIComponent(button.dataset.key) + '/' + button.dataset.decide, decision);
    out.className = 'settled';
    out.textContent = decided.message;
    document.getElementById('approval-reason').value = '';
  } catch (e) {
    out.className = 'refused';
    out.textContent = e.message;
  }
  refresh();
});

// Resuming a run is a message to the agent, as the chat's: the chat shows it on its way, then the answer.
document.getElementById('resumable').addEventListener('click', async (event) => {
  const button = event.target.closest('button.resume');
  if (!button) return;
  button.disabled = true;
  pending = [['user', 'Resuming run ' + button.dataset.run], ['assistant', '…']];
  chatShown = '';
  try {
    await api('runs/' + encodeURIComponent(button.dataset.run) + '/resume', {});
    pending = null;
  } catch (e) {
    pending = [['user', 'Resuming run ' + button.dataset.run], ['assistant', 'Error: ' + e.message]];
  }
  chatShown = '';
  refresh();
});

refresh();
setInterval(refresh, 2000);
