// Slidegate's live admin page: one server-sent event per second from <root>/stream, where <root> is the
// admin's root path (slidegate.admin.root-path), given by the page in the script tag's data-root.
// Everything a caller can influence (keys) is written with textContent, never as HTML.
(function () {
  'use strict';
  const policies = document.getElementById('policies');
  const template = document.getElementById('policy-template');
  const sections = new Map();
  let previous = null;
  const root = document.getElementById('slidegate-admin').dataset.root;

  // a policy or key as one path segment, whatever it holds: '/' and '.' are encoded too, so a key such
  // as "/../../login/keys/ip:127.0.0.1" stays one segment and can never name another policy's key
  function segment(text) {
    return encodeURIComponent(text).replace(/\./g, '%2E');
  }

  function keyPath(policy, key) {
    // an absolute URL from the origin, which never carries credentials (a page opened as
    // http://user:pass@host/admin would otherwise make fetch refuse relative URLs)
    return location.origin + root + '/policies/' + segment(policy) + '/keys/' + segment(key);
  }

  // a limit as a reader takes it: "2 in flight" is a cap, not a count of calls running
  function limitText(text) {
    return /^\d+ in flight$/.test(text) ? 'at most ' + text + ' per key' : text;
  }

  const SVG = 'http://www.w3.org/2000/svg';

  // the policy's last minutes: admitted, refused and waiting per bucket, on one scale, the newest at the right
  function drawTrend(svg, trend) {
    const series = [['admitted', trend.admitted], ['refused', trend.refused], ['waiting', trend.waiting]];
    const max = Math.max(1, ...series.flatMap(([, values]) => values));
    const step = 300 / Math.max(1, trend.admitted.length - 1);
    svg.replaceChildren(...series.map(([name, values]) => {
      const line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('class', name);
      line.setAttribute('points', values.map((v, i) => (i * step).toFixed(1) + ',' + (38 - 36 * v / max).toFixed(1)).join(' '));
      return line;
    }));
    svg.setAttribute('aria-label', 'last ' + (trend.admitted.length * trend.bucketSeconds / 60) + ' minutes: '
      + series.map(([name, values]) => values.reduce((a, b) => name === 'waiting' ? Math.max(a, b) : a + b, 0) + ' ' + name)
        .join(', '));
  }

  // busy: callers in its windows now, calls waiting, or anything admitted or refused in the last minutes
  function busy(p) {
    const t = p.trend;
    return p.busiest.length > 0 || p.waiting > 0
      || (t && (t.admitted.some(v => v > 0) || t.refused.some(v => v > 0) || t.waiting.some(v => v > 0)));
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
    label.textContent = limit.limit.indexOf('/') < 0 ? limit.used + ' / ' + total + ' running'
      : limit.used + ' / ' + total + ' in ' + limit.limit.split('/')[1]
        + (limit.resetMs > 0 ? ' · next in ' + (limit.resetMs / 1000).toFixed(1) + ' s' : '');
    div.append(fill, label);
    return div;
  }

  // a button that sends DELETE to url once, and says how it went
  function deleteButton(className, label, url) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = className;
    button.textContent = label;
    button.addEventListener('click', () => {
      button.disabled = true;
      fetch(url, { method: 'DELETE', credentials: 'same-origin' })
        .then(r => { button.textContent = r.ok ? label + ' ✓' : 'Failed (' + r.status + ')'; })
        .catch(() => { button.textContent = 'Failed'; });
    });
    return button;
  }

  function row(policy, key) {
    const tr = document.createElement('tr');
    tr.dataset.key = key.key;
    const name = document.createElement('td');
    name.className = 'key';
    name.textContent = key.key;
    if (key.oldestLeaseMs >= 0) {
      const oldest = document.createElement('span');
      oldest.className = 'oldest';
      oldest.textContent = ' · oldest running ' + (key.oldestLeaseMs / 1000).toFixed(1) + ' s';
      name.appendChild(oldest);
    }
    if (key.blockedMs > 0) { // block-for: a reset lifts it
      const blocked = document.createElement('span');
      blocked.className = 'blocked';
      blocked.textContent = ' · blocked for ' + Math.ceil(key.blockedMs / 1000) + ' s more (Reset lifts it)';
      name.appendChild(blocked);
    }
    if (key.waiting > 0) {
      const waiting = document.createElement('span');
      waiting.className = 'waiting';
      waiting.textContent = ' · ' + key.waiting + ' waiting here';
      name.appendChild(waiting);
    }
    const bars = document.createElement('td');
    key.limits.forEach(l => bars.appendChild(bar(l)));
    const actions = document.createElement('td');
    actions.appendChild(deleteButton('reset', 'Reset', keyPath(policy, key.key)));
    tr.append(name, bars, actions);
    return tr;
  }

  const overrideBody = document.querySelector('#overrides tbody');
  const form = document.getElementById('override-form');
  const formStatus = document.getElementById('override-status');

  function overridePath(o) {
    const base = location.origin + root + '/policies/' + segment(o.policy);
    if (o.plan) {
      return base + '/plans/' + segment(o.plan) + '/override';
    }
    if (o.key) {
      return keyPath(o.policy, o.key) + '/override';
    }
    return base + '/override';
  }

  function overrideRow(o) {
    const tr = document.createElement('tr');
    tr.dataset.target = JSON.stringify([o.policy, o.plan, o.key]);
    const cells = [
      o.plan ? 'plan ' + o.plan + ' of ' + o.policy : o.key ? o.key + ' in ' + o.policy : 'every caller of ' + o.policy,
      o.block ? 'block' : o.exempt ? 'exempt' : o.limits.join(', '),
      o.expiresIn == null ? 'never' : 'in ' + Math.ceil(o.expiresIn / 60) + ' min',
      o.reason || '',
      o.setBy];
    cells.forEach(text => {
      const td = document.createElement('td');
      td.textContent = text;
      tr.appendChild(td);
    });
    const actions = document.createElement('td');
    actions.appendChild(deleteButton('remove', 'Remove', overridePath(o)));
    tr.appendChild(actions);
    return tr;
  }

  form.addEventListener('submit', e => {
    e.preventDefault();
    const f = form.elements;
    const o = { policy: f.policy.value.trim() };
    if (f.scope.value === 'plan') { o.plan = f.target.value.trim(); }
    if (f.scope.value === 'key') { o.key = f.target.value.trim(); }
    const body = {};
    if (f.effect.value === 'limits') {
      body.limits = f.limits.value.split(',').map(t => t.trim()).filter(t => t.length > 0);
    } else {
      body[f.effect.value] = true;
    }
    if (f.minutes.value) { body.expiresIn = 60 * Number(f.minutes.value); }
    if (f.reason.value.trim()) { body.reason = f.reason.value.trim(); }
    formStatus.className = 'status-line';
    formStatus.textContent = 'saving…';
    fetch(overridePath(o), {
      method: 'PUT', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body)
    }).then(r => r.ok
      ? (formStatus.className = 'status-line ok', formStatus.textContent = 'added')
      : r.json().then(p => { formStatus.textContent = p.detail || ('failed (' + r.status + ')'); },
        () => { formStatus.textContent = 'failed (' + r.status + ')'; }))
      .catch(() => { formStatus.textContent = 'failed: no answer'; });
  });

  // the stream counts the overrides; the list is asked for only when they changed (overridesVersion), and
  // only its first page: with thousands of overrides an event stays small
  let overridesVersion = null;

  function renderOverrides(snapshot) {
    if (snapshot.overridesVersion !== overridesVersion) {
      overridesVersion = snapshot.overridesVersion;
      fetch(location.origin + root + '/overrides?limit=100', { credentials: 'same-origin' })
        .then(r => r.ok ? r.json() : Promise.reject(r.status))
        .then(page => {
          overrideBody.replaceChildren(...page.overrides.map(overrideRow));
          document.querySelector('#overrides .empty').hidden = page.total > 0;
          document.getElementById('overrides-more').textContent =
            page.total > page.overrides.length ? (page.total - page.overrides.length) + ' more: GET ' + root + '/overrides' : '';
        })
        .catch(() => { overridesVersion = null; }); // asked again with the next event
    }
    const names = document.getElementById('policy-names');
    names.replaceChildren(...snapshot.policies.map(p => {
      const option = document.createElement('option');
      option.value = p.name;
      return option;
    }));
  }

  // what the upstream of an outgoing policy said, as this instance read it
  function upstreamText(u) {
    const parts = ['upstream:'];
    if (!u.seenAt) {
      return 'upstream: no answer read yet';
    }
    if (u.limit >= 0) parts.push('publishes ' + u.limit + (u.remaining >= 0 ? ', ' + u.remaining + ' left' : ''));
    parts.push(u.learned ? 'paced at ' + u.learned + ' (learned ' + new Date(u.learnedAt).toLocaleTimeString() + ')'
      : 'paced at the configured limits');
    parts.push(u.refusals + ' × 429' + (u.last429At ? ', last ' + new Date(u.last429At).toLocaleTimeString() : ''));
    if (u.heldUntil) parts.push('holding calls until ' + new Date(u.heldUntil).toLocaleTimeString() + ': ' + u.heldBecause);
    return parts.join(' · ');
  }

  function render(snapshot) {
    renderOverrides(snapshot);
    document.getElementById('store').textContent = 'store: ' + snapshot.store
      + (snapshot.refusedLocally ? ' · ' + snapshot.refusedLocally + ' refusals answered without asking Redis' : '')
      + (snapshot.takenAhead ? ' · hot keys: ' + snapshot.takenAhead + ' permits taken ahead, ' + snapshot.usedAhead
        + ' used' : '');
    document.getElementById('status').textContent = 'updated ' + new Date(snapshot.at).toLocaleTimeString();
    const idle = [];
    snapshot.policies.forEach(p => {
      const s = section(p.name);
      s.querySelector('.limits').textContent = p.limits.map(limitText).join(', ');
      if (p.trend) {
        drawTrend(s.querySelector('.trend svg'), p.trend);
      }
      s.hidden = !busy(p);
      if (s.hidden) {
        idle.push(p);
      }
      s.querySelector('.admitted').textContent = String(p.admitted);
      s.querySelector('.refused').textContent = String(p.refused);
      s.querySelector('.waiting').textContent = String(p.waiting);
      const up = s.querySelector('.upstream');
      up.hidden = !p.upstream;
      if (p.upstream) {
        up.textContent = upstreamText(p.upstream);
      }
      const before = previous && previous.policies.find(q => q.name === p.name);
      const seconds = previous ? Math.max(0.001, (snapshot.at - previous.at) / 1000) : 1;
      s.querySelector('.rate').textContent = before ? ((p.refused - before.refused) / seconds).toFixed(1) : '0.0';
      const body = s.querySelector('tbody');
      body.replaceChildren(...p.busiest.map(k => row(p.name, k)));
      s.querySelector('.empty').hidden = p.busiest.length > 0;
    });
    // busy policies only, those with active callers first, the most refused next, then by name; idle ones folded
    const refusedOf = new Map(snapshot.policies.map(p => [p.name, p.trend ? p.trend.refused.reduce((a, b) => a + b, 0) : 0]));
    [...sections.values()]
      .sort((a, b) => (b.querySelector('tbody').children.length > 0) - (a.querySelector('tbody').children.length > 0)
        || (refusedOf.get(b.dataset.policy) || 0) - (refusedOf.get(a.dataset.policy) || 0)
        || a.dataset.policy.localeCompare(b.dataset.policy))
      .forEach(s => policies.appendChild(s));
    document.querySelector('#idle ul').replaceChildren(...idle.map(p => {
      const li = document.createElement('li');
      li.dataset.policy = p.name;
      li.textContent = p.name + ' ';
      const limits = document.createElement('small');
      limits.textContent = p.limits.map(limitText).join(', ');
      li.appendChild(limits);
      return li;
    }));
    document.querySelector('#idle .count').textContent = String(idle.length);
    document.getElementById('idle').hidden = idle.length === 0;
    previous = snapshot;
  }

  // a caller key, looked up in every policy: where it holds state now, with its windows, leases and waiters
  const searchForm = document.getElementById('search-form');
  searchForm.addEventListener('submit', e => {
    e.preventDefault();
    const key = searchForm.elements.key.value.trim();
    const status = document.getElementById('search-status');
    const table = document.getElementById('search-results');
    const names = previous ? previous.policies.map(p => p.name) : [];
    status.className = 'status-line';
    status.textContent = 'looking…';
    Promise.all(names.map(name => fetch(keyPath(name, key), { credentials: 'same-origin' })
      .then(r => r.ok ? r.json() : null, () => null).then(view => ({ name, view }))))
      .then(found => {
        const rows = found.filter(f => f.view && (f.view.usage > 0 || f.view.waiting > 0 || f.view.oldestLeaseMs >= 0))
          .map(f => {
            const tr = row(f.name, f.view);
            const policy = document.createElement('td');
            policy.textContent = f.name;
            tr.prepend(policy);
            return tr;
          });
        table.querySelector('tbody').replaceChildren(...rows);
        table.hidden = rows.length === 0;
        status.className = 'status-line ok';
        status.textContent = rows.length === 0 ? 'no policy holds state for ' + key
          : 'found in ' + rows.length + (rows.length === 1 ? ' policy' : ' policies');
      });
  });

  const events = new EventSource(location.origin + root + '/stream');
  events.onmessage = e => render(JSON.parse(e.data));
  events.onerror = () => { document.getElementById('status').textContent = 'reconnecting…'; };
})();
