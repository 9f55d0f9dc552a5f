// The page: a chat with the agent, and a live view of its runs, the ledger and the external systems.
const FAULTS = ['NONE', 'TIMEOUT_AFTER_EFFECT', 'FAIL_BEFORE_EFFECT', 'SLOW'];
const LABELS = {
  executed: 'executed', replayed: 'replayed', replayed_different_details: 'replayed, other details not applied',
  in_progress: 'in progress',
  previous_attempt_failed: 'previous failure', error: 'error', read: 'read (not idempotent)',
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

function say(role, text) {
  const chat = document.getElementById('chat');
  chat.append(el('div', { class: 'msg ' + role }, (role === 'user' ? 'You: ' : 'Assistant: ') + text));
  chat.scrollTop = chat.scrollHeight;
}

function renderRuns(runs) {
  const container = document.getElementById('runs');
  container.replaceChildren(...runs.map(({ transcript, ledger }) => {
    const run = el('div', { class: 'run', 'data-run': transcript.runId || '' },
      el('div', { class: 'run-title' }, '“' + transcript.request + '”  run ' + (transcript.runId || '(none)')
        + (transcript.idempotencyOff ? '  (idempotency off)' : '')));
    transcript.calls.forEach((call) => run.append(el('div', { class: 'call' },
      badge(call.outcome), el('code', {}, call.tool + ' ' + call.arguments), el('code', {}, call.modelRead))));
    ledger.filter((row) => row.reconciled).forEach((row) => run.append(el('div', { class: 'call' },
      badge('reconciled'), el('code', {}, row.tool), el('code', {}, 'the reconciler settled the call as ' + row.status))));
    ledger.filter((row) => row.settledBy).forEach((row) => run.append(el('div', { class: 'call' },
      badge('settled by hand'), el('code', {}, row.tool),
      el('code', {}, row.settledBy + ' settled the call as ' + row.status + ': ' + row.settleReason))));
    return run;
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

function renderList(id, countId, items, text) {
  document.getElementById(countId).textContent = items.length;
  document.getElementById(id).replaceChildren(...items.map((item) => el('li', {}, text(item))));
}

function render(state) {
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
    const [state, awaiting] = await Promise.all([api('state'), api('settlements')]);
    render(state);
    renderAwaiting(awaiting);
  } catch (e) { console.error(e); }
}

document.getElementById('chat-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('message');
  const message = input.value.trim() || input.placeholder;
  input.value = '';
  say('user', message);
  try {
    const run = await api('chat', { message });
    say('assistant', run.transcript.answer);
  } catch (e) {
    say('assistant', 'Error: ' + e.message);
  }
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
  try {
    const pass = await api('reconcile', {});
    out.textContent = 'resolved ' + (pass.succeeded + pass.failed) + ', postponed ' + pass.postponed;
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

refresh();
setInterval(refresh, 2000);
