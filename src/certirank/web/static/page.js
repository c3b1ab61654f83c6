// The page's own script (served from /static: the Content-Security-Policy allows no inline script).
document.addEventListener('DOMContentLoaded', function () {
  // show the server's readable 4xx message in place instead of dropping it (htmx skips error responses by default)
  document.body.addEventListener('htmx:beforeSwap', function (e) {
    var s = e.detail.xhr.status;
    if (s >= 400 && s < 500) { e.detail.shouldSwap = true; e.detail.isError = false; }
  });
  // the operator's name outlives page loads on this device (never sent anywhere but with a record)
  var f = document.getElementById('operator');
  if (f) {
    if (!f.value) { f.value = localStorage.getItem('certirank-operator') || ''; }
    f.addEventListener('input', function () { localStorage.setItem('certirank-operator', f.value); });
  }

  // ---- the per-rollout timer: restarts when another rollout becomes the current one (or on T)
  var started = Date.now(), shownRollout = null;
  function syncTimer(force) {
    var cur = document.getElementById('current');
    var key = cur ? cur.getAttribute('data-rollout') : null;
    if (force || key !== shownRollout) { started = Date.now(); shownRollout = key; }
  }
  function tick() {
    var t = document.getElementById('timer');
    if (!t) { return; }
    var s = Math.floor((Date.now() - started) / 1000);
    t.textContent = Math.floor(s / 60) + ':' + ('0' + (s % 60)).slice(-2);
  }
  syncTimer(true);
  setInterval(tick, 250);

  // ---- the rig checklist: ticked on this device only (nothing is sent), kept across page loads
  // restored on every swap; ticks are saved by one listener on the document, so a tick made while a live update
  // swaps the panel in (before it settles) is kept, not lost to a box that had no listener yet
  var store = 'certirank-checklist:' + location.host + location.pathname;
  function checklist() {
    var done = JSON.parse(localStorage.getItem(store) || '[]');
    document.querySelectorAll('.check-item').forEach(function (box) { box.checked = done.indexOf(box.value) >= 0; });
  }
  document.addEventListener('change', function (e) {
    if (!e.target.classList || !e.target.classList.contains('check-item')) { return; }
    var now = [];
    document.querySelectorAll('.check-item').forEach(function (b) { if (b.checked) { now.push(b.value); } });
    localStorage.setItem(store, JSON.stringify(now));
  });
  document.addEventListener('click', function (e) {
    if (!e.target || e.target.id !== 'checklist-clear') { return; }
    localStorage.removeItem(store);
    document.querySelectorAll('.check-item').forEach(function (b) { b.checked = false; });
  });
  checklist();
  document.body.addEventListener('htmx:afterSettle', function () { syncTimer(false); tick(); checklist(); });

  // ---- keys (a USB foot pedal sends keys too): S / PageDown success, F / PageUp failure, X fault, U undo, T timer
  var keys = {s: 'btn-success', PageDown: 'btn-success', f: 'btn-failure', PageUp: 'btn-failure', x: 'btn-fault',
              u: 'btn-undo'};
  var busy = false;
  document.body.addEventListener('htmx:beforeRequest', function () { busy = true; });
  document.body.addEventListener('htmx:afterRequest', function () { busy = false; });
  document.addEventListener('keydown', function (e) {
    var tag = (e.target && e.target.tagName) || '', type = (e.target && e.target.type) || '';
    var typing = tag === 'TEXTAREA' || tag === 'SELECT' ||
                 (tag === 'INPUT' && ['checkbox', 'radio', 'button', 'submit'].indexOf(type) < 0);
    if (e.ctrlKey || e.metaKey || e.altKey || typing) { return; }  // keys are text while typing a note or a name
    var k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (k === 't') { syncTimer(true); tick(); e.preventDefault(); return; }
    var id = keys[k];
    var b = id && document.getElementById(id);
    if (!b) { return; }
    e.preventDefault();
    if (busy || b.disabled) { return; }  // one press, one entry: a key held down or pressed twice is ignored
    // a panel swapped in a moment ago may not be wired to htmx yet (it is on settle): wire it now, so the key
    // never falls back to a plain form post that leaves the page
    if (window.htmx && b.form) { htmx.process(b.form); }
    b.click();
  });

  // ---- live: when the log moves on (another device, the shell), the run panel is fetched again. Only when the
  // event is newer than what the panel shows (entry ids only grow): the stream's first event after a load, and an
  // event computed before this page's own write was answered, are not news; refetching on them swapped the panel
  // under the operator (ticked tags cleared, checklist boxes unticked until the swap settled, a key press ignored)
  // What the operator has entered but not sent survives that refetch: the note being typed always; the ticked
  // tags, a typed partial score and a changed fault reason only while the same rollout is still the one to judge
  // (they describe it, and must not go with the next rollout's record).
  function entered() {
    var cur = document.getElementById('current'), got = {rollout: cur && cur.getAttribute('data-rollout'),
                                                             tags: [], values: {}};
    document.querySelectorAll('#tags input[name=tags]').forEach(function (b) { if (b.checked) { got.tags.push(b.value); } });
    document.querySelectorAll('#run-panel form input[type=number], #run-panel form input[type=text]').forEach(
      function (el) { if (el.value !== el.defaultValue) { got.values[el.form.className + ' ' + el.name] = el.value; } });
    return got;
  }
  function restore(got) {
    var cur = document.getElementById('current'), same = cur && cur.getAttribute('data-rollout') === got.rollout;
    if (same) {
      document.querySelectorAll('#tags input[name=tags]').forEach(function (b) {
        if (got.tags.indexOf(b.value) >= 0) { b.checked = true; } });
    }
    document.querySelectorAll('#run-panel form input[type=number], #run-panel form input[type=text]').forEach(
      function (el) {
        var key = el.form.className + ' ' + el.name;
        if (key in got.values && (same || el.form.className === 'note')) { el.value = got.values[key]; }
      });
  }
  var panel = document.getElementById('run-panel');
  if (panel && window.EventSource && panel.getAttribute('data-events')) {
    var source = new EventSource(panel.getAttribute('data-events'));
    source.addEventListener('status', function (ev) {
      var st = JSON.parse(ev.data), state = document.getElementById('run-state');
      var head = state ? parseInt(state.getAttribute('data-head'), 10) : -1;
      if (st.details.last_record_id > head && !busy) {
        var got = entered();
        htmx.ajax('GET', panel.getAttribute('data-panel'), {target: '#run-panel', swap: 'innerHTML'})
          .then(function () { restore(got); });
      }
    });
  }
});
