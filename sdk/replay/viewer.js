// taimahjong replay viewer: draws the frames sdk/replay/frames.py precomputed.
// Nothing of the rules is computed here: every tile, count, score and sentence comes
// from the JSON; this script only draws the chosen step and moves between steps. The
// page holds the match's outline; each hand's frames are decoded from the page (gzip)
// or fetched from the server when shown, and a live match's new steps are pushed to it.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const $ = (id) => document.getElementById(id);
  const slider = $("slider");
  const WINDS = { 27: "East", 28: "South", 29: "West", 30: "North" };
  const hands = new Map(); // hand (0-based) -> its data
  const loading = new Map(); // hand -> the promise of its data
  const starts = D.starts.slice(); // first frame of each hand (frame: step over the match)
  let total = D.total; // steps known (a live match grows)
  let step = -1;
  let want = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // one <svg> per tile kind, cloned for each tile: the faces are the page's SVG symbols
  const faces = D.tiles.map((code) => {
    const box = el("span");
    box.innerHTML = '<svg viewBox="0 0 30 40" aria-hidden="true"><use href="#t-' + code + '"></use></svg>';
    return box.firstChild;
  });

  // a tile by its kind 0..33 (null: face down); data-tile holds its notation (5m, E)
  function tile(kind, extra) {
    if (kind === null) return el("span", "tile back" + (extra ? " " + extra : ""));
    const code = D.tiles[kind];
    const t = el("span", "tile " + (kind < 27 ? "mps"[Math.floor(kind / 9)] : "z") + (extra ? " " + extra : ""));
    t.dataset.tile = code;
    t.title = code;
    t.appendChild(faces[kind].cloneNode(true));
    return t;
  }

  function seatName(s) {
    return "seat " + s + " (" + D.names[s] + ")";
  }

  function meld(m) {
    const box = el("span", "meld");
    box.dataset.kind = m.kind;
    let calledDone = false;
    for (const code of m.tiles) {
      let extra = "small";
      if (!calledDone && m.called === code) {
        extra += " called";
        calledDone = true;
      }
      const t = tile(code, extra);
      if (extra.includes("called") && m.from !== null) t.title += " claimed from seat " + m.from;
      box.appendChild(t);
    }
    return box;
  }

  function seatHead(f, s, st) {
    const head = el("div", "seat-head");
    const wind = el("span", "wind", D.tiles[st.wind]);
    wind.title = WINDS[st.wind] + " wind";
    head.appendChild(wind);
    head.appendChild(el("span", "name", "seat " + s + " · " + D.names[s]));
    if (f.dealer === s) head.appendChild(el("span", "dealer", "dealer"));
    head.appendChild(el("span", "count", st.count + " concealed"));
    head.appendChild(el("span", "score", f.scores[s]));
    return head;
  }

  function seatBox(f, states, s) {
    const st = states[f.seats[s]];
    const box = el("div", "seat");
    box.id = "seat-" + s;
    if (f.turn === s) box.classList.add("turn"); // to act, or its discard may be claimed
    if (D.seat === s) box.classList.add("me");
    box.appendChild(seatHead(f, s, st));

    const line = el("div", "row line"); // the concealed tiles, then the melds
    const hand = el("div", "hand");
    if (st.hand !== null) {
      for (const code of st.hand) hand.appendChild(tile(code));
      if (st.drawn !== null) hand.appendChild(tile(st.drawn, "drawn"));
    } else {
      for (let i = 0; i < st.count; i++) hand.appendChild(tile(null));
    }
    line.appendChild(hand);
    if (st.melds.length || st.hidden_kongs) {
      const melds = el("div", "melds");
      for (const m of st.melds) melds.appendChild(meld(m));
      for (let i = 0; i < st.hidden_kongs; i++) {
        const box2 = el("span", "meld hidden-kong");
        for (let j = 0; j < 4; j++) box2.appendChild(tile(null, "small"));
        melds.appendChild(box2);
      }
      line.appendChild(melds);
    }
    box.appendChild(line);

    if (st.won !== null) {
      const won = el("div", "row won");
      won.appendChild(el("span", "label", "won"));
      for (const code of st.won.hand) won.appendChild(tile(code, "small"));
      won.appendChild(tile(st.won.tile, "small drawn win"));
      for (const m of st.won.melds) won.appendChild(meld(m));
      box.appendChild(won);
    }

    const river = el("div", "row river");
    const claimedAt = new Set(st.claimed);
    st.river.forEach((code, i) => {
      const claimed = claimedAt.has(i);
      let extra = "small";
      if (claimed) extra += " claimed";
      if (i === st.river.length - 1 && f.pending === code && f.turn === s) extra += " pending";
      const t = tile(code, extra);
      if (claimed) t.title += " (claimed)";
      river.appendChild(t);
    });
    box.appendChild(river);
    return box;
  }

  // the wall still there (shown once the match is over): [front, reserved, back]
  function renderWall(f, data) {
    const box = $("wall");
    if (!f.wall_cut || !data.wall) {
      box.replaceChildren();
      return;
    }
    const [front, reserved, back] = f.wall_cut;
    const row = el("div", "row");
    for (let i = front; i < back; i++) {
      row.appendChild(tile(data.wall[i], i >= reserved ? "small reserved" : "small"));
    }
    box.replaceChildren(el("h2", "", "wall: " + (back - front) + " tiles, front first"), row);
  }

  function renderStatus(f) {
    const round = WINDS[f.round_wind] || "";
    $("status").textContent =
      "hand " + (f.hand + 1) + "/" + D.hands + " · round " + round + " · wall " + f.wall +
      " (" + Math.max(f.drawable, 0) + " to draw) · " + D.perspective;
    $("step-label").textContent = stepLabel(step);
  }

  function renderEvent(f) {
    const within = place(step)[1];
    const head = within < 0 ? "start" : "step " + within;
    $("event").replaceChildren(el("h2", "", head), el("div", "text", f.text || "(start)"));
  }

  function renderDecisions(data) {
    const box = $("decisions");
    const list = data.decisions.filter((d) => d.frame === step);
    if (!list.length) {
      box.replaceChildren();
      return;
    }
    const nodes = [el("h2", "", "decisions asked at this step")];
    for (const d of list) {
      const row = el("div", "decision");
      row.dataset.seat = d.seat;
      const head = el("div", "");
      head.appendChild(el("span", "", seatName(d.seat) + ": "));
      head.appendChild(el("code", "", d.applied));
      const took = d.ms !== null ? " · " + d.ms + " ms" : d.answer === null ? " · no reply" : "";
      head.appendChild(el("span", "", took)); // an answer without a time: no reply shown
      head.appendChild(el("span", "badge " + d.outcome, d.outcome));
      row.appendChild(head);
      const opts = el("div", "opts");
      for (const a of d.legal) opts.appendChild(el("span", a === d.applied ? "opt applied" : "opt", a));
      if (d.answer !== null && d.answer !== d.applied) opts.appendChild(el("span", "opt answer", d.answer));
      row.appendChild(opts);
      if (d.reason) row.appendChild(el("div", "reason", d.reason));
      nodes.push(row);
    }
    box.replaceChildren(...nodes);
  }

  function renderResult(f, data) {
    const box = $("result");
    const r = data.result;
    if (f.result === null || !r) {
      box.replaceChildren();
      return;
    }
    const nodes = [el("h2", "", "hand " + (f.hand + 1) + " result"), el("div", "text", r.text)];
    if (r.items.length || r.total_tai !== null) {
      const t = el("table", "tai");
      for (const it of r.items) {
        const tr = el("tr", "item");
        tr.dataset.item = it.id;
        tr.dataset.name = it.name; // the Chinese name: kept as data, drawn in Latin
        tr.appendChild(el("td", "", it.id.replaceAll("_", " ") + (it.count > 1 ? " ×" + it.count : "")));
        tr.appendChild(el("td", "n", it.tai + " tai"));
        t.appendChild(tr);
      }
      const tot = el("tr", "total");
      tot.appendChild(el("td", "", "total"));
      tot.appendChild(el("td", "n", r.total_tai + " tai"));
      t.appendChild(tot);
      nodes.push(t);
    }
    const pay = el("ul", "pay");
    r.payments.forEach((p, s) => {
      const li = el("li", "", seatName(s) + " " + (p > 0 ? "+" : "") + p);
      li.dataset.seat = s;
      pay.appendChild(li);
    });
    nodes.push(el("div", "", "payments:"), pay);
    box.replaceChildren(...nodes);
  }

  // the final standings, on the match's last step
  function renderStandings() {
    const box = $("standings");
    if (!D.final || step !== total - 1) {
      box.replaceChildren();
      return;
    }
    const order = [0, 1, 2, 3].sort((a, b) => D.final[b] - D.final[a] || a - b);
    const t = el("table", "standings");
    const head = el("tr", "");
    for (const h of ["rank", "seat", "bot", "score"]) head.appendChild(el("th", "", h));
    t.appendChild(head);
    order.forEach((s, i) => {
      const tr = el("tr", "");
      tr.dataset.seat = s;
      const rank = i > 0 && D.final[order[i - 1]] === D.final[s] ? t.lastChild.firstChild.textContent : String(i + 1);
      for (const text of [rank, "seat " + s, D.names[s], D.final[s]]) tr.appendChild(el("td", "", text));
      t.appendChild(tr);
    });
    box.replaceChildren(el("h2", "", "final standings"), t);
  }

  function renderLog(f, data) {
    const box = $("log");
    const ol = el("ol", "");
    let now = null;
    data.frames.forEach((fr, i) => {
      if (!fr.text) return;
      const k = data.start + i;
      const li = el("li", k === step ? "now" : "");
      li.appendChild(el("span", "n", place(k)[1])); // the hand's event number
      li.appendChild(el("span", "t", fr.text));
      li.dataset.step = k;
      li.addEventListener("click", () => go(k));
      if (k === step) now = li;
      ol.appendChild(li);
    });
    box.replaceChildren(el("h2", "", "hand " + (f.hand + 1) + " events"), ol);
    if (now) ol.scrollTop = now.offsetTop - ol.clientHeight / 2; // the list only: the page stays put
  }

  // People's numbers (docs/RECORDS.md, "Numbering"): hand H from 1 and step S within it,
  // step 0 being the table right after the hand's hand_start, step S after its event S.
  // Frames count over the whole match; frame 0 is the match's start, before hand 1's
  // hand_start (starts[0] is that frame, so hand 1's step 0 is frame 1).
  function zero(h) {
    return starts[h] + (h === 0 ? 1 : 0); // the frame of hand h's step 0
  }

  function lastOf(h) {
    return (h + 1 < starts.length ? starts[h + 1] : total) - 1; // hand h's last frame
  }

  // [hand (0-based), step within it] of frame k; the step is -1 for the match's start
  function place(k) {
    const h = handOf(k);
    return [h, k - zero(h)];
  }

  // the frame of step s within hand h (0-based), clamped to the hand's steps
  function frameOf(h, s) {
    return Math.max(starts[h], Math.min(zero(h) + s, lastOf(h)));
  }

  function stepLabel(k) {
    const [h, s] = place(k);
    const last = lastOf(h) - zero(h);
    return "hand " + (h + 1) + " · " + (s < 0 ? "start" : "step " + s) + (last >= 0 ? " / " + last : "");
  }

  function anchor(k) {
    const [h, s] = place(k);
    return s < 0 ? "#start" : "#hand=" + (h + 1) + "&step=" + s;
  }

  function handOf(k) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= k) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  async function unpack(b64) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const text = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(text).text());
  }

  async function fetchHand(h) {
    const from = D.source;
    if (from.packed) return unpack(from.packed[h]);
    if (D.first && D.first.hand === h) return D.first;
    let answer = await fetch(from.url + h + (from.query || ""));
    if (answer.status === 429) {
      // over the server's request rate: once more, after the time it asks
      const wait = Number(answer.headers.get("retry-after")) || 1;
      await new Promise((done) => setTimeout(done, Math.min(wait, 5) * 1000));
      answer = await fetch(from.url + h + (from.query || ""));
    }
    if (!answer.ok) throw new Error("hand " + (h + 1) + " could not be loaded (HTTP " + answer.status + ")");
    return answer.json();
  }

  function load(h) {
    if (hands.has(h)) return Promise.resolve(hands.get(h));
    if (!loading.has(h)) {
      const p = fetchHand(h).then((data) => {
        loading.delete(h);
        const pushed = hands.get(h); // a live hand may have grown meanwhile
        if (!pushed || pushed.frames.length < data.frames.length) hands.set(h, data);
        return hands.get(h);
      });
      p.catch(() => loading.delete(h));
      loading.set(h, p);
    }
    return loading.get(h);
  }

  function show(k, data) {
    step = k;
    const f = data.frames[k - data.start];
    slider.value = String(step);
    renderStatus(f);
    $("table").replaceChildren(...[0, 1, 2, 3].map((s) => seatBox(f, data.states, s)));
    renderStandings();
    renderEvent(f);
    renderDecisions(data);
    renderResult(f, data);
    renderLog(f, data);
    renderWall(f, data);
    document.body.dataset.step = String(step);
    delete document.body.dataset.loading;
    if (!document.body.dataset.ready) performance.mark("viewer-ready"); // for benchmarks/bench_viewer.py
    document.body.dataset.ready = "1";
    if (history.replaceState) history.replaceState(null, "", anchor(step));
    const h = handOf(k);
    for (const near of [h + 1, h - 1]) {
      if (near >= 0 && near < starts.length && !hands.has(near) && !D.live) load(near).catch(() => {});
    }
  }

  function go(k) {
    want = Math.max(0, Math.min(total - 1, k | 0));
    const h = handOf(want);
    const data = hands.get(h);
    if (data && want - data.start < data.frames.length) {
      show(want, data);
      return;
    }
    document.body.dataset.loading = "1";
    const target = want;
    load(h).then(
      () => {
        if (want === target) go(target);
      },
      (err) => {
        delete document.body.dataset.loading;
        $("event").replaceChildren(el("h2", "", "not loaded"), el("div", "text", err.message));
      },
    );
  }

  // the steps where a decision was asked, in order (for n / p): in the hands loaded
  function decisionJump(delta) {
    const h = handOf(step);
    const tried = [h, h + delta].filter((x) => x >= 0 && x < starts.length);
    Promise.all(tried.map(load)).then((datas) => {
      const frames = datas.flatMap((d) => d.decisions.map((x) => x.frame));
      const later = frames.filter((k) => (delta > 0 ? k > step : k < step)).sort((a, b) => a - b);
      if (later.length) go(delta > 0 ? later[0] : later[later.length - 1]);
    });
  }

  function handJump(delta) {
    const h = handOf(step) + delta;
    if (h < 0) go(0);
    else if (h >= starts.length) go(total - 1);
    else go(zero(h)); // its step 0
  }

  // the frame an address names (docs/VIEWER.md): #hand=H&step=S, #hand=H (its step 0),
  // #step=S (hand 1's), #hand=H&step=end (its last step), #step=end, #start
  function target() {
    const hash = location.hash;
    const h = /[#&]hand=(\d+)/.exec(hash);
    const s = /[#&]step=(\d+|end)/.exec(hash);
    if (hash === "#start") return 0;
    if (!h && !s) return D.live ? total - 1 : 0;
    if (!h && s[1] === "end") return total - 1;
    const hand = Math.max(1, Math.min(starts.length, h ? Number(h[1]) : 1)) - 1;
    if (s && s[1] === "end") return lastOf(hand);
    return frameOf(hand, s ? Number(s[1]) : 0);
  }

  function follow() {
    // a running match: new steps arrive as server-sent events; the view follows the last
    // step unless the reader has moved away from it
    const events = new EventSource(D.source.stream);
    events.onmessage = (e) => {
      const m = JSON.parse(e.data);
      const following = step === total - 1;
      if (m.starts) m.starts.forEach((s, i) => (starts[i] = s));
      starts[m.hand] = m.start;
      let data = hands.get(m.hand);
      if (!data || m.reset) {
        data = { hand: m.hand, start: m.start, frames: [], states: [], decisions: [], result: null, wall: null };
        hands.set(m.hand, data);
      }
      data.frames.push(...m.frames);
      data.states.push(...m.states);
      if (m.result) data.result = m.result;
      total = Math.max(total, data.start + data.frames.length);
      D.final = m.final || null;
      slider.max = String(total - 1);
      if (following) go(total - 1);
      else $("step-label").textContent = stepLabel(step);
    };
    events.addEventListener("end", () => {
      events.close();
      if (step === total - 1) location.reload(); // the finished view: every hand shown
    });
  }

  $("title").textContent = D.title;
  const views = $("views");
  for (const [label, href] of D.links) {
    const a = el("a", href === "" ? "current" : "", label);
    if (href !== "") a.href = href;
    views.appendChild(a);
  }
  slider.max = String(total - 1);
  // a slider dragged across many hands fetches only the one it rests on
  let resting = null;
  slider.addEventListener("input", () => {
    const k = Number(slider.value);
    clearTimeout(resting);
    if (hands.has(handOf(k))) go(k);
    else {
      $("step-label").textContent = stepLabel(k);
      document.body.dataset.loading = "1";
      resting = setTimeout(() => go(k), 120);
    }
  });
  $("first").addEventListener("click", () => go(0));
  $("last").addEventListener("click", () => go(total - 1));
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("prev-hand").addEventListener("click", () => handJump(-1));
  $("next-hand").addEventListener("click", () => handJump(1));
  document.addEventListener("keydown", (e) => {
    const moves = {
      ArrowLeft: () => go(step - 1),
      ArrowRight: () => go(step + 1),
      Home: () => go(0),
      End: () => go(total - 1),
      PageUp: () => handJump(-1),
      PageDown: () => handJump(1),
      n: () => decisionJump(1),
      p: () => decisionJump(-1),
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      move();
    }
  });
  window.addEventListener("hashchange", () => go(target()));

  go(target());
  if (D.live && D.source.stream) follow();
})();
