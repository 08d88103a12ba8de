// Slidegate's live admin page: one server-sent event per second from /admin/stream.
// Everything a caller can influence (keys) is written with textContent, never as HTML.
(function () {
  'use strict';
  const policies = document.getElementById('policies');
  const template = document.getElementById('policy-template');
  const sections = new Map();
  let previous = null;

  function keyPath(policy, key) {
    // an absolute URL from the origin, which never carries credentials (a page opened as
    // http://user:pass@host/admin would otherwise make fetch refuse relative URLs);
    // '/' stays a separator, everything else is encoded
    return location.origin + '/admin/policies/' + encodeURIComponent(policy) + '/keys/'
      + key.split('/').map(encodeURIComponent).join('/');
  }

  function section(name) {
    let s = sections.get(name);
    if (!s) {
      s = template.content.firstElementChild.cloneNode(true);
      s.dataset.policy = name;
      s.querySelector('.name').textContent = name;
      policies.appendChild(s);
      sections.set(name, s);
    }
    return s;
  }

  function bar(limit) {
    const total = limit.used + limit.remaining;
    const div = document.createElement('div');
    div.className = 'bar' + (limit.remaining === 0 ? ' full' : '');
    div.dataset.limit = limit.limit;
    div.dataset.used = String(limit.used);
    const fill = document.createElement('div');
    fill.className = 'fill';
    fill.style.width = (total > 0 ? Math.min(100, 100 * limit.used / total) : 0) + '%';
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = limit.used + ' / ' + total + ' in ' + limit.limit.split('/')[1]
      + (limit.resetMs > 0 ? ' · next in ' + (limit.resetMs / 1000).toFixed(1) + ' s' : '');
    div.append(fill, label);
    return div;
  }

  function row(policy, key) {
    const tr = document.createElement('tr');
    tr.dataset.key = key.key;
    const name = document.createElement('td');
    name.className = 'key';
    name.textContent = key.key;
    const bars = document.createElement('td');
    key.limits.forEach(l => bars.appendChild(bar(l)));
    const actions = document.createElement('td');
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.className = 'reset';
    reset.textContent = 'Reset';
    reset.addEventListener('click', () => {
      reset.disabled = true;
      fetch(keyPath(policy, key.key), { method: 'DELETE', credentials: 'same-origin' })
        .then(r => { reset.textContent = r.ok ? 'Reset ✓' : 'Failed (' + r.status + ')'; })
        .catch(() => { reset.textContent = 'Failed'; });
    });
    actions.appendChild(reset);
    tr.append(name, bars, actions);
    return tr;
  }

  function render(snapshot) {
    document.getElementById('store').textContent = 'store: ' + snapshot.store
      + (snapshot.refusedLocally ? ' · ' + snapshot.refusedLocally + ' refusals answered without asking Redis' : '');
    document.getElementById('status').textContent = 'updated ' + new Date(snapshot.at).toLocaleTimeString();
    snapshot.policies.forEach(p => {
      const s = section(p.name);
      s.querySelector('.limits').textContent = p.limits.join(', ');
      s.querySelector('.admitted').textContent = String(p.admitted);
      s.querySelector('.refused').textContent = String(p.refused);
      const before = previous && previous.policies.find(q => q.name === p.name);
      const seconds = previous ? Math.max(0.001, (snapshot.at - previous.at) / 1000) : 1;
      s.querySelector('.rate').textContent = before ? ((p.refused - before.refused) / seconds).toFixed(1) : '0.0';
      const body = s.querySelector('tbody');
      body.replaceChildren(...p.busiest.map(k => row(p.name, k)));
      s.querySelector('.empty').hidden = p.busiest.length > 0;
    });
    // policies with active callers first, then by name
    [...sections.values()]
      .sort((a, b) => (b.querySelector('tbody').children.length > 0) - (a.querySelector('tbody').children.length > 0)
        || a.dataset.policy.localeCompare(b.dataset.policy))
      .forEach(s => policies.appendChild(s));
    previous = snapshot;
  }

  const events = new EventSource(location.origin + '/admin/stream');
  events.onmessage = e => render(JSON.parse(e.data));
  events.onerror = () => { document.getElementById('status').textContent = 'reconnecting…'; };
})();
