/* report.js - draws `ergo report`'s charts from window.ERGO_DATA (tools/report.c writes it): the
 * region tree (d3 icicles by time and by energy), the Pareto plot of every region of the model
 * (Chart.js), the policies compared (Chart.js bars, `ergo compare`'s figures), the power
 * timeline (Chart.js) and the balance lines as a heat map (d3).  With ERGO_DATA.only set
 * ("tree", "tree:energy", "pareto:REGION", "compare", "power", "balance") the page is that one
 * chart alone, filling a picture of ERGO_DATA.only_height pixels, for
 * `ergo report --png/--svg`.  Every figure of a run on the sim node carries a SIMULATED badge.
 * When done, document.body.dataset.ready is "1" and ERGO_DRAWN lists the charts drawn. */
(function () {
  'use strict';
  const D = window.ERGO_DATA;
  const only = D.only || null;
  window.ERGO_DRAWN = [];
  const SVGNS = 'http://www.w3.org/2000/svg';
  const FONT = 'system-ui, sans-serif';
  if (window.Chart) {
    Chart.defaults.animation = false;
    Chart.defaults.font.family = FONT;
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function badge(parent, label) {
    if (label) parent.appendChild(el('span', { class: 'badge ' + label }, label));
  }
  function num(v, digits) {
    return v === null || v === undefined ? '-' : Number(v).toFixed(digits);
  }
  function pct(v, signed) {
    if (v === null || v === undefined) return '-';
    return (signed && v > 0 ? '+' : '') + v.toFixed(2) + ' %';
  }
  function short(path) {
    return path && path.indexOf('Global/') === 0 ? path.slice(7) : path;
  }
  function section(id) {
    return document.querySelector('#' + id + ' .body');
  }
  function missing(parent, text) {
    parent.appendChild(el('p', { class: 'missing' }, text));
  }
  /* A Chart.js chart in a new box; its canvas is recorded as drawn. */
  function chart(parent, name, config) {
    const box = el('div', { class: 'canvas-box' });
    const canvas = el('canvas', { 'data-chart': name });
    box.appendChild(canvas);
    parent.appendChild(box);
    config.options = Object.assign({ responsive: true, maintainAspectRatio: false }, config.options);
    const c = new Chart(canvas, config);
    window.ERGO_DRAWN.push(name);
    return c;
  }
  /* A d3 SVG that stands alone as a file (namespace and font on the element). */
  function svg(parent, name, width, height) {
    const s = d3.select(parent).append('svg')
      .attr('xmlns', SVGNS).attr('width', width).attr('height', height)
      .attr('viewBox', '0 0 ' + width + ' ' + height)
      .attr('font-family', FONT).attr('font-size', 11).attr('data-chart', name);
    s.append('rect').attr('width', width).attr('height', height).attr('fill', '#ffffff');
    window.ERGO_DRAWN.push(name);
    return s;
  }
  /* A chart's heading; a chart alone (--png, --svg) has its title in it, but a Pareto plot's. */
  function title(parent, text, label) {
    if (only && !/^pareto/.test(only)) return el('span');
    const h = el('h3', {}, text);
    badge(h, label);
    parent.appendChild(h);
    return h;
  }
  const runs = D.runs || [];
  const first = runs[0];

  /* ---- the region tree: icicles by time and by energy ---- */
  function hierarchy(node, key) {
    const own = key === 'time' ? node.self_s : node.energy ? node.energy.self : 0;
    const kids = (node.children || []).map(function (c) { return hierarchy(c, key); });
    const t = { name: node.name, path: node.path, node: node, children: kids };
    if (kids.length) {
      if (own > 0) kids.push({ name: '(self)', path: node.path + ' (self)', node: node, value: own });
    } else {
      t.value = Math.max(0, key === 'time' ? node.time_s : node.energy ? node.energy.total : 0);
    }
    if (!kids.length) delete t.children;
    return t;
  }
  function icicle(parent, run, key, width, height) {
    const unit = key === 'time' ? 's' : 'J';
    const total = key === 'time' ? run.tree.time_s : run.tree.energy && run.tree.energy.total;
    const head = title(parent, 'by ' + key + ' (' + run.label_name + ', ' + num(total, 3) + ' ' + unit + ')',
      run.label);
    if (key === 'energy' && !run.tree.energy) {
      head.remove();
      missing(parent, 'No energy in ' + run.file + ': the run measured none.');
      return;
    }
    const root = hierarchy(run.tree, key);
    const part = d3.layout.partition().sort(null).size([width, height])
      .value(function (d) { return d.value || 0; });
    const nodes = part.nodes(root);
    const color = d3.scale.category20();
    /* Colour by the branch a box is in: below the first node with more than one child
     * (Global/Timestep in a timestep loop), each child and its descendants one colour. */
    let b = nodes[0];
    while (b.children && b.children.length === 1) b = b.children[0];
    const branch = b.depth + 1;
    function top(d) { while (d.depth > branch) d = d.parent; return d.depth < branch ? '' : d.name; }
    const s = svg(parent, 'tree-' + key, width, height + (only ? 24 : 0));
    if (only) {
      s.append('text').attr('x', 6).attr('y', 16).attr('font-size', 14).attr('font-weight', 700)
        .text(run.label_name + ': region tree by ' + key + (run.label ? ' [' + run.label + ']' : ''));
    }
    const g = s.append('g').attr('transform', 'translate(0,' + (only ? 24 : 0) + ')');
    const cell = g.selectAll('g').data(nodes.filter(function (d) { return d.dx > 0.5; }))
      .enter().append('g').attr('transform', function (d) { return 'translate(' + d.x + ',' + d.y + ')'; });
    cell.append('rect').attr('width', function (d) { return Math.max(0, d.dx - 1); })
      .attr('height', function (d) { return d.dy - 1; })
      .attr('fill', function (d) { return d.depth < branch ? '#bbbbbb' : color(top(d)); })
      .attr('fill-opacity', function (d) { return d.name === '(self)' ? 0.45 : 0.9; });
    cell.append('title').text(function (d) {
      return short(d.path) + ': ' + num(d.value, 3) + ' ' + unit + ' (' + num(100 * d.value / (root.value || 1), 1) +
        ' %)' + (run.label ? ' [' + run.label + ']' : '');
    });
    cell.filter(function (d) { return d.dx > 48; }).append('text').attr('x', 4).attr('y', 14)
      .attr('fill', '#111').text(function (d) {
        const t = d.name + ' ' + num(100 * d.value / (root.value || 1), 0) + '%';
        const fit = Math.floor((d.dx - 8) / 6.2);
        return t.length > fit ? t.slice(0, Math.max(0, fit - 1)) + '…' : t;
      });
  }
  function drawTree(parent, which) {
    if (!first) return missing(parent, 'No run given.');
    if (!only) {
      parent.appendChild(el('p', { class: 'note' },
        'The first run, ' + first.file + ': each row is a depth of the tree, each box a region ' +
        'sized by its share of the total (its own part as "(self)", lighter). Hover for figures.'));
    }
    const box = el('div', { class: 'grid' });
    parent.appendChild(box);
    ['time', 'energy'].forEach(function (key) {
      if (which && which !== key) return;
      const c = el('div', { class: only ? '' : 'cell' });
      box.appendChild(c);
      icicle(c, first, key, only ? 960 : 560, only ? 560 : 260);
    });
  }

  /* ---- Pareto plots of the model's regions ---- */
  function configText(c) {
    if (!c) return '';
    return Object.keys(c).map(function (k) {
      const v = c[k];
      if (/_khz$/.test(k)) return k.replace(/_khz$/, '') + ' ' + (v / 1e6).toFixed(1) + ' GHz';
      return k + ' ' + v;
    }).join(', ');
  }
  function sameConfig(a, b) {
    if (!a || !b) return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every(function (k) { return a[k] === b[k]; });
  }
  /* [lo, hi] of the values, widened by a share of the range on a linear axis and by a factor on
   * a log one. */
  function bounds(values, log) {
    const lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    if (log) return [lo / 1.08, hi * 1.08];
    const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.05 || 1;
    return [lo - pad, hi + pad];
  }
  /* An energy a meter measured: a number above 0 (null where none did; an older ergo wrote 0). */
  function measuredJ(v) { return typeof v === 'number' && v > 0; }
  function pareto(parent, path, region, label, model) {
    const pts = region.points || [];
    if (!pts.some(function (p) { return measuredJ(p.energy_j); }) &&
        !(region.baseline && measuredJ(region.baseline.energy_j))) {
      /* Time alone: a time/energy plot would draw every configuration at 0 J, as if measured. */
      const c = el('div', { class: only ? 'wide' : 'cell' });
      parent.appendChild(c);
      title(c, short(path) + ': ' + pts.length + ' configurations measured', label);
      missing(c, 'No energy was measured when ' + model.file + ' was made (no energy meter: its ' +
        'energy_j are null, or 0 in a model of an older ergo), so there is no time/energy plot. ' +
        'Chosen: ' + (configText(region.config) || 'inherited') + '; time per execution: ' +
        pts.map(function (p) { return (configText(p.config) || 'inherited') + ' ' + num(p.time_s, 6) + ' s'; }).join(', ') + '.');
      return;
    }
    const k = region.pareto || 0;
    const xy = function (p) { return { x: p.time_s, y: p.energy_j, config: p.config, n: p.n }; };
    const front = pts.slice(0, k).map(xy).sort(function (a, b) { return a.x - b.x; });
    const chosen = pts.filter(function (p) { return sameConfig(p.config, region.config); }).map(xy);
    const datasets = [
      { label: 'measured (' + pts.length + ')', data: pts.map(xy), backgroundColor: 'rgba(120,120,120,0.45)',
        pointRadius: 3 },
      { label: 'Pareto set (' + front.length + ')', data: front, showLine: true, borderColor: '#1f77b4',
        backgroundColor: '#1f77b4', pointRadius: 4 },
    ];
    if (region.baseline && region.baseline.time_s > 0) {
      datasets.push({ label: 'baseline', data: [{ x: region.baseline.time_s, y: region.baseline.energy_j }],
        pointStyle: 'triangle', pointRadius: 9, backgroundColor: '#2ca02c' });
    }
    if (chosen.length) {
      datasets.push({ label: 'chosen: ' + configText(region.config), data: chosen, pointStyle: 'star',
        pointRadius: 12, borderWidth: 3, borderColor: '#d62728', backgroundColor: '#d62728' });
    }
    /* The sim node's exhaustive, noise-free best for the work of the region (always simulated). */
    const orc = D.oracle && D.oracle.regions ? D.oracle.regions[path] : null;
    if (orc) {
      const other = D.oracle.objective && D.oracle.objective !== model.objective;
      datasets.push({ label: 'oracle' + (other ? ' for ' + D.oracle.objective : '') + ' [SIMULATED]: ' +
        configText(orc.config), data: [{ x: orc.time_s, y: orc.energy_j, config: orc.config }],
        pointStyle: 'rectRot', pointRadius: 15, borderWidth: 2.5, borderColor: '#6a3d9a',
        backgroundColor: 'rgba(148,103,189,0)' });
    }
    const all = [].concat.apply([], datasets.map(function (d) { return d.data; }));
    const xs = all.map(function (p) { return p.x; }), ys = all.map(function (p) { return p.y; });
    /* A log axis where the values span more than a decade (a grid's slowest corners would squash
     * the front on a linear one). */
    const logx = xs.length && Math.min.apply(null, xs) > 0 && Math.max.apply(null, xs) > 10 * Math.min.apply(null, xs);
    const logy = ys.length && Math.min.apply(null, ys) > 0 && Math.max.apply(null, ys) > 10 * Math.min.apply(null, ys);
    const full = { x: bounds(xs, logx), y: bounds(ys, logy) };
    /* Drawn last, on top: the chosen one, then the oracle, the baseline, the front, the rest. */
    datasets.forEach(function (d, i) { d.order = datasets.length - i; });
    /* The Pareto set with the marks (chosen, baseline, oracle): what "zoom" shows. */
    const near = [].concat(front, datasets.slice(2).reduce(function (a, d) { return a.concat(d.data); }, []));
    const zoom = near.length ? { x: bounds(near.map(function (p) { return p.x; }), logx),
      y: bounds(near.map(function (p) { return p.y; }), logy) } : full;
    const c = el('div', { class: only ? 'wide' : 'cell' });
    parent.appendChild(c);
    title(c, short(path) + ': ' + pts.length + ' configurations measured', label);
    if (only) {
      c.appendChild(el('p', { class: 'note' }, model.file + ': policy ' + model.policy + ', objective ' +
        model.objective + '; mean time and energy per execution of each configuration measured' +
        (orc ? '; oracle from ' + D.oracle.file : '') + '.'));
    }
    if (D.oracle && !orc) {
      c.appendChild(el('p', { class: 'note' }, 'No oracle: ' + D.oracle.file + ' has no work of this region\'s own.'));
    }
    if (!chosen.length) {
      c.appendChild(el('p', { class: 'note' }, 'Chosen (not among the points): ' + configText(region.config)));
    }
    const ch = chart(c, 'pareto:' + path, {
      type: 'scatter',
      data: { datasets: datasets },
      options: {
        plugins: {
          legend: { reverse: true },
          tooltip: { callbacks: { label: function (ctx) {
            const r = ctx.raw;
            return [num(r.x, 6) + ' s, ' + num(r.y, 3) + ' J' + (label ? ' [' + label + ']' : ''),
              configText(r.config) || ctx.dataset.label];
          } } },
        },
        scales: {
          x: { type: logx ? 'logarithmic' : 'linear', min: logx ? full.x[0] : undefined,
            max: logx ? full.x[1] : undefined, title: { display: true,
            text: 'time per execution (s)' + (label ? ' [' + label + ']' : '') + (logx ? ', log scale' : '') } },
          y: { type: logy ? 'logarithmic' : 'linear', min: logy ? full.y[0] : undefined,
            max: logy ? full.y[1] : undefined, title: { display: true,
            text: 'energy per execution (J)' + (label ? ' [' + label + ']' : '') + (logy ? ', log scale' : '') } },
        },
      },
    });
    if (!only) zoomButton(c, ch, full, zoom);
  }
  function zoomButton(parent, ch, full, zoom) {
    const b = el('button', { type: 'button' }, 'zoom to the Pareto set');
    let zoomed = false;
    b.addEventListener('click', function () {
      zoomed = !zoomed;
      const r = zoomed ? zoom : full;
      const x = ch.options.scales.x, y = ch.options.scales.y;
      x.min = zoomed || x.type === 'logarithmic' ? r.x[0] : undefined;
      x.max = zoomed || x.type === 'logarithmic' ? r.x[1] : undefined;
      y.min = zoomed || y.type === 'logarithmic' ? r.y[0] : undefined;
      y.max = zoomed || y.type === 'logarithmic' ? r.y[1] : undefined;
      ch.update();
      b.textContent = zoomed ? 'show every configuration' : 'zoom to the Pareto set';
    });
    parent.appendChild(b);
  }
  function drawPareto(parent, which) {
    const m = D.model;
    if (!m) return missing(parent, 'No model given: add MODEL.json (ERGO_MODEL, written by policy sweep or ' +
      'online) to the command to see every configuration measured.');
    const label = m.node && m.node.platform === 'sim' ? 'SIMULATED' : null;
    if (!only) {
      parent.appendChild(el('p', { class: 'note' },
        m.file + ' (policy ' + m.policy + ', objective ' + m.objective + (m.node ? ', platform ' +
        m.node.platform : '') + '): per region the mean time and energy per execution of every ' +
        'configuration measured, the time/energy Pareto set joined, the baseline (untuned) a ' +
        'triangle and the configuration chosen a star' + (D.oracle ? '; the oracle of ' + D.oracle.file +
        ' (the sim node\'s exhaustive, noise-free best for the region\'s own work, objective ' + D.oracle.objective +
        ', SIMULATED) a hollow diamond' : '') + '. Hover for the configuration.'));
    }
    const box = el('div', { class: 'grid' });
    parent.appendChild(box);
    const regions = m.regions || {};
    Object.keys(regions).forEach(function (path) {
      if (which && which !== path) return;
      pareto(box, path, regions[path], label, m);
    });
  }

  /* ---- the policies compared ---- */
  function drawCompare(parent) {
    const cmp = D.compare;
    if (!cmp) return missing(parent, 'One run given: give two runs or more (e.g. policies monitor, static and ' +
      'online) to compare them.');
    const rs = cmp.runs;
    const sim = rs.some(function (r) { return r.label === 'SIMULATED'; });
    const label = sim ? 'SIMULATED' : rs.map(function (r) { return r.label; }).filter(Boolean)[0] || null;
    const policy = function (r) { return r.facts && r.facts.policy ? r.facts.policy : '?'; };
    if (!only) {
      parent.appendChild(el('p', { class: 'note' },
        'Energy to solution of each run (the figures of ergo compare), its energy saving and time change ' +
        'against ' + cmp.reference + ' (policy ' + policy(rs[0]) + ').'));
    }
    const c = el('div', { class: 'wide' });
    parent.appendChild(c);
    title(c, 'energy to solution', label);
    if (!rs.some(function (r) { return measuredJ(r.energy_j); })) {
      /* Bars of 0 J, or none at all, would read as measured. */
      missing(c, 'No energy was measured in these runs (their energy: ' + rs.map(function (r) {
        return r.facts && r.facts.energy ? r.facts.energy : '?'; }).join(', ') + '), so there is ' +
        'no energy to compare. Time: ' + rs.map(function (r, i) {
          return r.run + ' ' + num(r.time_s, 3) + ' s' + (i ? ' (' + pct(r.time_change_pct, true) + ')' : ''); }).join(', ') + '.');
      return;
    }
    const colors = ['#7f7f7f', '#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2'];
    chart(c, 'compare', {
      type: 'bar',
      data: {
        labels: rs.map(function (r, i) {
          return [r.run, 'policy ' + policy(r),
            i === 0 ? '(reference)' : 'saving ' + pct(r.energy_saving_pct) + ', time ' + pct(r.time_change_pct, true)];
        }),
        datasets: [{ label: 'energy (J)', data: rs.map(function (r) { return r.energy_j; }),
          backgroundColor: rs.map(function (r, i) { return colors[i % colors.length]; }) }],
      },
      options: {
        plugins: {
          legend: { display: false },
          title: { display: true, text: 'Energy to solution' + (label ? ' [' + label + ']' : '') },
        },
        scales: { y: { beginAtZero: true, title: { display: true, text: 'energy (J)' + (label ? ' [' + label + ']' : '') } } },
      },
    });
    if (only) return;
    const apps = rs.map(function (r) { return r.facts && r.facts.application; }).filter(Boolean);
    if (apps.some(function (a) { return a !== apps[0]; })) {
      c.appendChild(el('p', { class: 'note' }, 'These runs are of different applications (' +
        apps.filter(function (a, i) { return apps.indexOf(a) === i; }).join(', ') + '): their figures are not comparable.'));
    }
    const t = el('table');
    const hr = el('tr');
    ['run', 'policy', 'time (s)', 'energy (J)', 'saving', 'time change', 'label'].forEach(function (h) {
      hr.appendChild(el('th', {}, h));
    });
    t.appendChild(hr);
    rs.forEach(function (r, i) {
      const tr = el('tr');
      [r.run, policy(r), num(r.time_s, 3), num(r.energy_j, 2), i ? pct(r.energy_saving_pct) : 'ref',
        i ? pct(r.time_change_pct, true) : 'ref', r.label || ''].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
      t.appendChild(tr);
    });
    c.appendChild(t);
    /* Per region (compare's: depth 1 and 2 and every tuned one) each run's energy saving. */
    const regs = (cmp.regions || []).filter(function (g) {
      return g.runs.slice(1).some(function (r) { return r.energy_saving_pct !== null; });
    });
    if (!regs.length || rs.length < 2) return;
    const c2 = el('div', { class: 'wide' });
    parent.appendChild(c2);
    title(c2, 'energy saving per region against ' + cmp.reference + ' (%)', label);
    const box = chart(c2, 'compare-regions', {
      type: 'bar',
      data: {
        labels: regs.map(function (g) { return g.region; }),
        datasets: rs.slice(1).map(function (r, k) {
          return { label: r.run + ' (policy ' + policy(r) + ')', backgroundColor: colors[(k + 1) % colors.length],
            data: regs.map(function (g) { const x = g.runs[k + 1]; return x ? x.energy_saving_pct : null; }) };
        }),
      },
      options: {
        indexAxis: 'y',
        plugins: { tooltip: { callbacks: { label: function (ctx) {
          return ctx.dataset.label + ': saving ' + pct(ctx.raw) + (label ? ' [' + label + ']' : '');
        } } } },
        scales: { x: { title: { display: true, text: 'energy saved against ' + cmp.reference + ' (%)' +
          (label ? ' [' + label + ']' : '') } } },
      },
    });
    box.canvas.parentNode.style.height = Math.max(300, 26 * regs.length * Math.max(1, rs.length - 1) / 1.5 + 80) + 'px';
    box.resize();
  }

  /* ---- the power timeline ---- */
  function drawPower(parent) {
    const p = D.power;
    if (!p) return missing(parent, 'No power timeline given: add POWER.csv (ERGO_POWER_CSV, written by the ' +
      'sampler on a real node; the sim node has none) to the command.');
    if (!only) {
      parent.appendChild(el('p', { class: 'note' }, p.file + ': watts per domain at every sample of the ' +
        'sampler (ERGO_SAMPLE_MS), against the seconds since the run started.'));
    }
    const c = el('div', { class: 'wide' });
    parent.appendChild(c);
    title(c, 'power (W)', p.label);
    const colors = ['#d62728', '#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
    chart(c, 'power', {
      type: 'line',
      data: {
        datasets: p.columns.map(function (name, k) {
          return { label: name, data: p.rows.map(function (r) { return { x: r[0], y: r[k + 1] }; }),
            borderColor: colors[k % colors.length], backgroundColor: colors[k % colors.length],
            pointRadius: 0, borderWidth: 1.5 };
        }),
      },
      options: {
        parsing: false,
        plugins: { title: { display: true, text: 'Power timeline' + (p.label ? ' [' + p.label + ']' : '') } },
        scales: {
          x: { type: 'linear', title: { display: true, text: 'time since start (s)' } },
          y: { beginAtZero: true, title: { display: true, text: 'power (W)' + (p.label ? ' [' + p.label + ']' : '') } },
        },
      },
    });
  }

  /* ---- the balance lines as a heat map ---- */
  /* The run the balance file belongs to: the one of as many steps whose Global time is the
   * steps' sum (to 1 %); its label is the file's. */
  function balanceRun(b) {
    const sum = b.steps.reduce(function (s, x) { return s + x[1]; }, 0);
    return runs.filter(function (r) {
      const t = r.tree.time_s;
      const steps = r.facts && r.facts.steps;
      return (!steps || steps === b.steps.length) && t > 0 && Math.abs(sum - t) <= 0.01 * t;
    })[0] || null;
  }
  function drawBalance(parent) {
    const b = D.balance;
    if (!b) return missing(parent, 'No balance lines given: add BALANCE.txt (ERGO_BALANCE) to the command.');
    const owner = balanceRun(b);
    const label = owner ? owner.label : null;
    const syms = Object.keys(b.symbols).filter(function (s) { return s !== '?'; }).sort(function (x, y) {
      return b.symbols[x] < b.symbols[y] ? -1 : 1;
    });
    syms.push('?');
    const names = {};
    syms.forEach(function (s) { names[s] = s === '?' ? 'Unaccounted' : b.symbols[s]; });
    /* At most 300 columns: steps averaged in equal bins. */
    const n = b.steps.length, bins = Math.min(n, 300), per = n / bins;
    const cells = [];
    let max = 0;
    for (let i = 0; i < bins; i++) {
      const lo = Math.floor(i * per), hi = Math.max(lo + 1, Math.floor((i + 1) * per));
      const count = {};
      for (let j = lo; j < hi; j++) {
        const line = b.steps[j][2];
        for (let k = 0; k < line.length; k++) count[line[k]] = (count[line[k]] || 0) + 1;
      }
      syms.forEach(function (s, row) {
        const share = (count[s] || 0) / (hi - lo); /* of 100 symbols: per cent of the step */
        if (share > max) max = share;
        cells.push({ col: i, row: row, sym: s, share: share, from: b.steps[lo][0], to: b.steps[hi - 1][0] });
      });
    }
    if (!only) {
      parent.appendChild(el('p', { class: 'note' }, b.file + ': each row a region of the balance lines, ' +
        'each column a step (' + n + ' steps' + (bins < n ? ', averaged in ' + bins + ' columns' : '') +
        '), the colour its share of the step\'s time' + (owner ? '; the lines of ' + owner.file : '; ' +
        'no run given has these steps and this time, so their platform is not known') + '.'));
    }
    const c = el('div', { class: 'wide' });
    parent.appendChild(c);
    title(c, 'share of each step (%)', label);
    const left = 300, topm = only ? 30 : 8, rowh = Math.max(12, Math.min(22, Math.floor(520 / syms.length)));
    const width = only ? 960 : 1160, cw = (width - left - 60) / bins;
    const height = topm + rowh * syms.length + 40;
    const s = svg(c, 'balance', width, height);
    if (only) {
      s.append('text').attr('x', 6).attr('y', 18).attr('font-size', 14).attr('font-weight', 700)
        .text('Balance over the steps (share of each step)' + (label ? ' [' + label + ']' : ''));
    }
    const color = d3.scale.linear().domain([0, max || 1]).range(['#f7fbff', '#08306b']);
    s.selectAll('text.row').data(syms).enter().append('text').attr('class', 'row')
      .attr('x', left - 6).attr('y', function (d, i) { return topm + i * rowh + rowh * 0.7; })
      .attr('text-anchor', 'end').text(function (d) {
        const t = d + '  ' + names[d].replace(/^Timestep:/, '');
        return t.length > 48 ? t.slice(0, 47) + '…' : t;
      });
    const g = s.append('g');
    g.selectAll('rect').data(cells).enter().append('rect')
      .attr('x', function (d) { return left + d.col * cw; }).attr('y', function (d) { return topm + d.row * rowh; })
      .attr('width', Math.max(cw, 0.5)).attr('height', rowh - 1)
      .attr('fill', function (d) { return color(d.share); })
      .append('title').text(function (d) {
        return names[d.sym] + ', step ' + d.from + (d.to !== d.from ? '-' + d.to : '') + ': ' + num(d.share, 1) + ' %' +
          (label ? ' [' + label + ']' : '');
      });
    const axis = topm + rowh * syms.length + 14;
    [0, Math.floor((bins - 1) / 2), bins - 1].forEach(function (i) {
      s.append('text').attr('x', left + (i + 0.5) * cw).attr('y', axis).attr('text-anchor', 'middle')
        .text('step ' + b.steps[Math.floor(i * per)][0]);
    });
    s.append('text').attr('x', left).attr('y', axis + 16)
      .text('colour: share of the step, white 0 % to dark ' + num(max, 0) + ' %');
  }

  /* ---- the page ---- */
  function summary() {
    const s = document.getElementById('summary');
    if (!s) return;
    const sim = runs.filter(function (r) { return r.label === 'SIMULATED'; }).length;
    const f = first && first.facts ? first.facts : {};
    s.textContent = runs.length + ' run' + (runs.length === 1 ? '' : 's') + ' of ' + (f.application || 'an application') +
      ' (ergo ' + D.ergo_version + ')' + (f.host ? ' on ' + f.host : '') + (f.date ? ', ' + f.date : '') +
      (sim ? '. ' + sim + ' of them ran on the sim node, ergo\'s simulated machine: every figure of theirs is ' +
        'SIMULATED and marked so.' : '.');
    if (sim) badge(s, 'SIMULATED');
  }
  function safely(name, fn) {
    try {
      fn();
    } catch (e) {
      console.error('ergo report: ' + name + ': ' + e);
    }
  }
  if (only) {
    document.body.innerHTML = '';
    document.body.className = 'only';
    const box = el('div', { class: 'wide' });
    document.body.appendChild(box);
    const kind = only.split(':')[0];
    safely(only, function () {
      if (kind === 'tree') drawTree(box, only.split(':')[1] || 'time');
      else if (kind === 'pareto') drawPareto(box, only.slice(7));
      else if (kind === 'compare') drawCompare(box);
      else if (kind === 'power') drawPower(box);
      else if (kind === 'balance') drawBalance(box);
      /* The chart fills the window below its heading and notes. */
      document.querySelectorAll('.canvas-box').forEach(function (b) {
        const h = D.only_height || window.innerHeight;
        b.style.height = Math.max(200, h - b.getBoundingClientRect().top - 12) + 'px';
        const ch = Chart.getChart(b.querySelector('canvas'));
        if (ch) ch.resize();
      });
    });
  } else {
    summary();
    safely('tree', function () { drawTree(section('sec-tree')); });
    safely('pareto', function () { drawPareto(section('sec-pareto')); });
    safely('compare', function () { drawCompare(section('sec-compare')); });
    safely('power', function () { drawPower(section('sec-power')); });
    safely('balance', function () { drawBalance(section('sec-balance')); });
  }
  document.body.dataset.ready = '1';
})();
