/* dashboard.js - ergo's live dashboard: polls the JSON endpoints of the server that ergo started
 * (ERGO_DASHBOARD), draws with Chart.js (embedded, no network) and posts the sliders' objective
 * and the policy to the running tuner, which applies them at its next ergo_step. */
'use strict';
(function () {
  const token = new URLSearchParams(location.search).get('token') || '';
  const q = (path) => path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token);
  const $ = (id) => document.getElementById(id);
  const palette = ['#00897b', '#e53935', '#3949ab', '#fb8c00', '#8e24aa', '#6d4c41', '#43a047', '#546e7a'];
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;

  function line(id, title, axes) {
    const scales = { x: { title: { display: true, text: 'step' } } };
    axes.forEach((a, i) => {
      scales['y' + i] = { position: i ? 'right' : 'left', title: { display: true, text: a },
                          grid: { drawOnChartArea: i === 0 } };
    });
    return new Chart($(id), {
      type: 'line',
      data: { labels: [], datasets: axes.map((a, i) => ({ label: a, data: [], yAxisID: 'y' + i,
        borderColor: palette[i], backgroundColor: palette[i], pointRadius: 0, borderWidth: 2 })) },
      options: { plugins: { title: { display: true, text: title } }, scales: scales },
    });
  }
  /* One bar per label, each on its own axis (left, right). */
  function bars(id, title, labels) {
    const scales = {};
    labels.forEach((l, i) => {
      scales['y' + i] = { position: i ? 'right' : 'left', title: { display: true, text: l },
                          grid: { drawOnChartArea: i === 0 } };
    });
    return new Chart($(id), {
      type: 'bar',
      data: { labels: [], datasets: labels.map((l, i) => ({ label: l, data: [], yAxisID: 'y' + i,
        backgroundColor: palette[i] })) },
      options: { plugins: { title: { display: true, text: title } }, scales: scales },
    });
  }
  const charts = {
    power: line('chart-power', 'Power and energy per step', ['power (W)', 'energy per step (J)']),
    time: line('chart-time', 'Step time and efficiency', ['step time (s)', 'efficiency (steps/kJ)']),
    nodePower: new Chart($('chart-node-power'), {
      type: 'line', data: { labels: [], datasets: [] },
      options: { plugins: { title: { display: true, text: 'Power per node over steps' } },
                 scales: { x: { title: { display: true, text: 'step' } },
                           y: { title: { display: true, text: 'power (W)' } } } },
    }),
    regions: bars('chart-regions', 'Energy and time per region (top 12 by time)', ['energy (J)', 'time (s)']),
    nodes: bars('chart-nodes', 'Per node: last step', ['step time (s)', 'step energy (J)']),
  };

  /* ---- views ---- */
  document.querySelectorAll('nav button').forEach((b) => b.addEventListener('click', () => {
    document.querySelectorAll('nav button').forEach((o) => o.classList.toggle('on', o === b));
    document.querySelectorAll('.view').forEach((v) => v.classList.toggle('hidden', v.id !== 'view-' + b.dataset.view));
    Object.values(charts).forEach((c) => c.resize());
  }));

  /* ---- control ---- */
  const weights = ['time', 'energy', 'resource'];
  let touched = false;
  function objectiveText() {
    const kind = $('objective').value;
    if (kind !== 'weighted') return kind;
    return 'weighted:t=' + $('w-time').value + ',e=' + $('w-energy').value + ',r=' + $('w-resource').value;
  }
  async function post(params) {
    const body = Object.entries(params).map(([k, v]) => k + '=' + encodeURIComponent(v)).join('&');
    const r = await fetch(q('api/control?' + body), { method: 'POST' });
    const j = await r.json();
    $('change').textContent = r.ok ? 'asked: ' + Object.values(params).join(', ') + ' (applied at the next step)' : 'refused: ' + j.error;
  }
  weights.forEach((w) => {
    $('w-' + w).addEventListener('input', () => { $('o-' + w).textContent = $('w-' + w).value; });
    $('w-' + w).addEventListener('change', () => { touched = true; $('objective').value = 'weighted'; post({ objective: objectiveText() }); });
  });
  $('objective').addEventListener('change', () => { touched = true; post({ objective: objectiveText() }); });
  $('policy').addEventListener('change', () => { touched = true; post({ policy: $('policy').value }); });

  function showState(s) {
    const e = s.energy_j === null ? '-' : s.energy_j.toFixed(1) + ' J';
    $('summary').textContent = 'step ' + s.step + ' · ' + s.run_s.toFixed(2) + ' s · ' + e + ' · ' +
      s.power_w.toFixed(1) + ' W · ' + s.ranks + ' rank(s), ' + s.nodes + ' node(s)';
    // Every figure of a sim-node run is simulated, and an estimate meter's energy is a model's.
    const label = { sim: 'SIMULATED', estimate: 'ESTIMATE' }[s.platform] || '';
    $('platform').textContent = label;
    $('platform').hidden = !label;
    $('objective-now').textContent = s.tunes ? 'in force: ' + s.policy + ', ' + s.objective : 'policy ' + s.policy + ' (does not tune)';
    if (s.last_change) $('change').textContent = 'last change ' + s.last_change;
    document.querySelectorAll('#controls select, #controls input').forEach((i) => { i.disabled = !s.control || !s.tunes; });
    if (!touched) {
      $('policy').value = s.policy;
      const m = /^weighted:t=([\d.]+),e=([\d.]+),r=([\d.]+)/.exec(s.objective || '');
      if (m) {
        $('objective').value = 'weighted';
        weights.forEach((w, i) => { $('w-' + w).value = m[i + 1]; $('o-' + w).textContent = m[i + 1]; });
      } else if (s.objective) {
        $('objective').value = s.objective;
      }
    }
  }

  function showTimeline(t) {
    const pts = t.points;
    const labels = pts.map((p) => p.step);
    const set = (c, arrays) => { c.data.labels = labels; arrays.forEach((a, i) => { c.data.datasets[i].data = a; }); c.update(); };
    set(charts.power, [pts.map((p) => p.power_w), pts.map((p) => p.energy_j)]);
    set(charts.time, [pts.map((p) => p.time_s), pts.map((p) => p.steps_per_kj)]);
    const nn = pts.length ? pts[pts.length - 1].node_power_w.length : 0;
    charts.nodePower.data.labels = labels;
    charts.nodePower.data.datasets = Array.from({ length: nn }, (_, k) => ({
      label: 'node ' + k, pointRadius: 0, borderWidth: 2, borderColor: palette[k % palette.length],
      backgroundColor: palette[k % palette.length], data: pts.map((p) => (k < p.node_power_w.length ? p.node_power_w[k] : null)) }));
    charts.nodePower.update();
    /* One chart per knob, one stepped line per tracked region. */
    const knobs = new Set();
    pts.forEach((p) => p.settings.forEach((v) => { if (v) Object.keys(v).forEach((n) => knobs.add(n)); }));
    knobs.forEach((n) => {
      const scale = /_khz$/.test(n) ? 1e-6 : 1;
      const c = knobChart(n, scale === 1 ? n : n.replace(/_khz$/, ' (GHz)'));
      c.data.labels = labels;
      c.data.datasets = t.tracked.map((path, k) => ({
        label: path.replace(/^Global\/Timestep\//, '').replace(/^Global\//, ''), stepped: true,
        pointRadius: 0, borderWidth: 2, borderColor: palette[k % palette.length],
        backgroundColor: palette[k % palette.length],
        data: pts.map((p) => (p.settings[k] && p.settings[k][n] ? p.settings[k][n] * scale : null)) }));
      c.update();
    });
  }

  /* The chart of one knob's settings over steps, made when the knob first shows. */
  function knobChart(name, title) {
    if (charts['knob-' + name]) return charts['knob-' + name];
    const div = document.createElement('div');
    div.className = 'chart wide';
    const cv = document.createElement('canvas');
    cv.id = 'chart-knob-' + name;
    div.appendChild(cv);
    $('knob-charts').appendChild(div);
    charts['knob-' + name] = new Chart(cv, {
      type: 'line', data: { labels: [], datasets: [] },
      options: { plugins: { title: { display: true, text: 'Setting of the tuned regions: ' + title },
                            legend: { position: 'right' } },
                 scales: { x: { title: { display: true, text: 'step' } } } },
    });
    return charts['knob-' + name];
  }

  const fmt = (v, d) => (v === null || v === undefined ? '-' : Number(v).toFixed(d));
  const setting = (s) => (s ? Object.entries(s).map(([k, v]) => k + '=' + v).join(' ') : '');
  function showRegions(rs) {
    const body = $('regions').tBodies[0];
    body.textContent = '';
    rs.forEach((r) => {
      const tr = body.insertRow();
      tr.dataset.path = r.path;
      if (r.tuned) tr.className = 'tuned';
      const tuning = r.budget ? (r.done ? 'done' : r.evals + '/' + r.budget) + (r.confidence ? ' · beats baseline @' + r.confidence : '')
                              : (r.tuned ? r.executions + ' runs' : '');
      [' '.repeat(2 * r.depth) + r.name, r.calls, fmt(r.time_s, 3), fmt(r.energy_j, 1), fmt(r.power_w, 1),
       setting(r.setting), setting(r.best), tuning].forEach((v) => { tr.insertCell().textContent = v; });
    });
    const top = rs.filter((r) => r.depth > 0 && r.name !== 'Unaccounted').sort((a, b) => b.time_s - a.time_s).slice(0, 12);
    charts.regions.data.labels = top.map((r) => r.name);
    charts.regions.data.datasets[0].data = top.map((r) => r.energy_j);
    charts.regions.data.datasets[1].data = top.map((r) => r.time_s);
    charts.regions.update();
  }

  function showRanks(rs) {
    const body = $('ranks').tBodies[0];
    body.textContent = '';
    rs.forEach((r) => {
      const tr = body.insertRow();
      [r.rank, r.node, fmt(r.step_time_s, 3), fmt(r.step_energy_j, 1), fmt(r.energy_j, 1)]
        .forEach((v) => { tr.insertCell().textContent = v; });
    });
  }

  function showNodes(ns) {
    const body = $('nodes').tBodies[0];
    body.textContent = '';
    ns.forEach((n) => {
      const tr = body.insertRow();
      [n.node, n.ranks, fmt(n.step_time_s, 3), fmt(n.step_energy_j, 1), fmt(n.power_w, 1), fmt(n.energy_j, 1)]
        .forEach((v) => { tr.insertCell().textContent = v; });
    });
    const labels = ns.map((n) => 'node ' + n.node);
    charts.nodes.data.labels = labels;
    charts.nodes.data.datasets[0].data = ns.map((n) => n.step_time_s);
    charts.nodes.data.datasets[1].data = ns.map((n) => n.step_energy_j);
    charts.nodes.update();
  }

  /* The small state every half second; the rest only when a step has passed. */
  let lastStep = -1;
  async function poll() {
    try {
      const r = await fetch(q('api/state'));
      if (r.ok) {
        const s = await r.json();
        showState(s);
        if (s.step !== lastStep) {
          const ra = await fetch(q('api/all'));
          if (ra.ok) {
            const all = await ra.json();
            lastStep = all.state.step;
            showState(all.state);
            showTimeline(all.timeline);
            showRegions(all.regions);
            showNodes(all.nodes);
            showRanks(all.ranks);
            document.body.dataset.step = all.state.step;
          }
        }
      } else if (r.status !== 503) {
        $('summary').textContent = 'the server said ' + r.status;
      }
    } catch (e) {
      $('summary').textContent = 'the run has ended (or the server is gone)';
    }
    setTimeout(poll, 500);
  }
  poll();
})();
