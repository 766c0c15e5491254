// taimahjong replay viewer: renders the frames sdk/replay/frames.py precomputed.
// Nothing of the rules is computed here: every tile, count, score and sentence comes
// from the embedded JSON; this script only draws the chosen step and moves between steps.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const frames = D.frames;
  const last = frames.length - 1;
  const bySteps = new Map();
  for (const d of D.decisions) {
    if (!bySteps.has(d.frame)) bySteps.set(d.frame, []);
    bySteps.get(d.frame).push(d);
  }
  const $ = (id) => document.getElementById(id);
  const slider = $("slider");
  let step = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // a tile by its kind 0..33 (null: face down); data-tile holds its notation (5m, E)
  function tile(kind, extra) {
    if (kind === null) return el("span", "tile back" + (extra ? " " + extra : ""));
    const face = D.labels[kind];
    const t = el("span", "tile " + face[2] + " t-" + face[3] + (extra ? " " + extra : ""));
    t.dataset.tile = face[3];
    t.title = face[0] + face[1] + " (" + face[3] + ")";
    t.appendChild(el("b", "", face[0]));
    if (face[1]) t.appendChild(el("i", "", face[1]));
    t.appendChild(el("u", "", face[3])); // the notation in a corner: legible without CJK fonts
    return t;
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
      if (extra.includes("called") && m.from !== null) t.title += " claimed from " + D.names[m.from];
      box.appendChild(t);
    }
    return box;
  }

  function seatBox(f, s) {
    const st = D.seat_states[f.seats[s]];
    const box = el("div", "seat");
    box.id = "seat-" + s;
    if (f.turn === s) box.classList.add("turn"); // to act, or its discard may be claimed
    if (D.seat === s) box.classList.add("me");
    const head = el("div", "seat-head");
    head.appendChild(el("span", "wind", D.labels[st.wind][0] + " " + D.labels[st.wind][3]));
    head.appendChild(el("span", "name", "seat " + s + " · " + D.names[s]));
    if (f.dealer === s) head.appendChild(el("span", "dealer", "dealer 莊"));
    head.appendChild(el("span", "score", f.scores[s]));
    box.appendChild(head);

    const hand = el("div", "row hand");
    hand.appendChild(el("span", "label", "hand"));
    if (st.hand !== null) {
      for (const code of st.hand) hand.appendChild(tile(code));
      if (st.drawn !== null) hand.appendChild(tile(st.drawn, "drawn"));
    } else {
      for (let i = 0; i < st.count; i++) hand.appendChild(tile(null));
    }
    hand.appendChild(el("span", "count", st.count + " concealed"));
    box.appendChild(hand);

    if (st.melds.length || st.hidden_kongs) {
      const melds = el("div", "row melds");
      melds.appendChild(el("span", "label", "melds"));
      for (const m of st.melds) melds.appendChild(meld(m));
      for (let i = 0; i < st.hidden_kongs; i++) {
        const box2 = el("span", "meld hidden-kong");
        for (let j = 0; j < 4; j++) box2.appendChild(tile(null, "small"));
        melds.appendChild(box2);
      }
      box.appendChild(melds);
    }

    if (st.won !== null) {
      const won = el("div", "row won");
      won.appendChild(el("span", "label", "won"));
      for (const code of st.won.hand) won.appendChild(tile(code));
      won.appendChild(tile(st.won.tile, "drawn win"));
      for (const m of st.won.melds) won.appendChild(meld(m));
      box.appendChild(won);
    }

    const river = el("div", "row river");
    river.appendChild(el("span", "label", "river"));
    const claimedAt = new Set(st.claimed);
    st.river.forEach((code, i) => {
      const claimed = claimedAt.has(i);
      let extra = "small";
      if (claimed) extra += " claimed";
      if (i === st.river.length - 1 && f.pending === code && f.turn === s) {
        extra += " pending";
      }
      const t = tile(code, extra);
      if (claimed) t.title += " (claimed)";
      river.appendChild(t);
    });
    box.appendChild(river);
    return box;
  }

  function renderTable(f) {
    const table = $("table");
    table.replaceChildren(...[0, 1, 2, 3].map((s) => seatBox(f, s)));
    if (f.wall_cut) table.appendChild(wallBox(f.wall_cut));
  }

  // the wall still there (shown once the match is over): [hand, front, reserved, back]
  function wallBox(cut) {
    const [hand, front, reserved, back] = cut;
    const box = el("div", "seat wall");
    box.id = "wall";
    box.appendChild(el("div", "seat-head", "wall: " + (back - front) + " tiles, front first"));
    const row = el("div", "row");
    for (let i = front; i < back; i++) {
      row.appendChild(tile(D.walls[hand][i], i >= reserved ? "small reserved" : "small"));
    }
    box.appendChild(row);
    return box;
  }

  function renderStatus(f) {
    const wind = D.labels[f.round_wind][0];
    $("status").textContent =
      "hand " + (f.hand + 1) + "/" + D.hands + " · round " + wind + " · wall " + f.wall +
      " (" + Math.max(f.drawable, 0) + " to draw) · " + D.perspective;
    $("step-label").textContent = "step " + step + " / " + last;
  }

  function renderEvent(f) {
    const box = $("event");
    box.replaceChildren(el("h2", "", "step " + step), el("div", "text", f.text || "(start)"));
  }

  function renderDecisions() {
    const box = $("decisions");
    const list = bySteps.get(step) || [];
    if (!list.length) {
      box.replaceChildren();
      return;
    }
    const nodes = [el("h2", "", "decisions asked at this step")];
    for (const d of list) {
      const row = el("div", "decision");
      row.dataset.seat = d.seat;
      const head = el("div", "");
      head.appendChild(el("span", "", "seat " + d.seat + " (" + D.names[d.seat] + "): "));
      head.appendChild(el("code", "", d.applied));
      const took = d.ms !== null ? " · " + d.ms + " ms" : d.answer === null ? " · no reply" : "";
      head.appendChild(el("span", "", took)); // an answer without a time: no reply shown
      head.appendChild(el("span", "badge " + d.outcome, d.outcome));
      row.appendChild(head);
      const opts = el("div", "opts");
      for (const a of d.legal) {
        let cls = "opt";
        if (a === d.applied) cls += " applied";
        opts.appendChild(el("span", cls, a));
      }
      if (d.answer !== null && d.answer !== d.applied) {
        opts.appendChild(el("span", "opt answer", d.answer));
      }
      row.appendChild(opts);
      if (d.reason) row.appendChild(el("div", "reason", d.reason));
      nodes.push(row);
    }
    box.replaceChildren(...nodes);
  }

  function renderResult(f) {
    const box = $("result");
    if (f.result === null) {
      box.replaceChildren();
      return;
    }
    const r = D.results[f.result];
    const nodes = [el("h2", "", "hand " + (f.result + 1) + " result"), el("div", "text", r.text)];
    if (r.items.length || r.total_tai !== null) {
      const t = el("table", "tai");
      for (const it of r.items) {
        const tr = el("tr", "item");
        tr.dataset.item = it.id;
        tr.appendChild(el("td", "", it.name + (it.count > 1 ? " ×" + it.count : "")));
        tr.appendChild(el("td", "", it.id.replaceAll("_", " ")));
        tr.appendChild(el("td", "n", it.tai + " 台"));
        t.appendChild(tr);
      }
      const tot = el("tr", "total");
      tot.appendChild(el("td", "", "total"));
      tot.appendChild(el("td", "", ""));
      tot.appendChild(el("td", "n", r.total_tai + " 台"));
      t.appendChild(tot);
      nodes.push(t);
    }
    nodes.push(el("div", "pay", "payments: " + r.payments.map((p, s) => D.names[s] + " " + (p > 0 ? "+" : "") + p).join(", ")));
    box.replaceChildren(...nodes);
  }

  function renderLog(f) {
    const box = $("log");
    const start = D.hand_starts[f.hand] || 0;
    const end = f.hand + 1 < D.hand_starts.length ? D.hand_starts[f.hand + 1] - 1 : last;
    const ol = el("ol", "");
    ol.start = start;
    let now = null;
    for (let k = start; k <= end; k++) {
      if (!frames[k].text) continue;
      const li = el("li", k === step ? "now" : "", frames[k].text);
      li.value = k;
      li.dataset.step = k;
      li.addEventListener("click", () => go(k));
      if (k === step) now = li;
      ol.appendChild(li);
    }
    box.replaceChildren(el("h2", "", "hand " + (f.hand + 1) + " events"), ol);
    if (now) now.scrollIntoView({ block: "nearest" });
  }

  function go(k) {
    step = Math.max(0, Math.min(last, k | 0));
    const f = frames[step];
    slider.value = String(step);
    document.body.dataset.step = String(step);
    renderStatus(f);
    renderTable(f);
    renderEvent(f);
    renderDecisions();
    renderResult(f);
    renderLog(f);
    if (history.replaceState) history.replaceState(null, "", "#step=" + step);
  }

  // the frames where a decision was asked, in order (for n / p)
  const decisionFrames = Array.from(bySteps.keys()).sort((a, b) => a - b);

  function decisionJump(delta) {
    const later = decisionFrames.filter((k) => (delta > 0 ? k > step : k < step));
    if (later.length) go(delta > 0 ? later[0] : later[later.length - 1]);
  }

  function handJump(delta) {
    const h = frames[step].hand + delta;
    if (h < 0) go(0);
    else if (h >= D.hand_starts.length) go(last);
    else go(D.hand_starts[h]);
  }

  $("title").textContent = D.title;
  const views = $("views");
  for (const [label, href] of D.links) {
    const a = el("a", href === "" ? "current" : "", label);
    if (href !== "") a.href = href;
    views.appendChild(a);
  }
  slider.max = String(last);
  slider.addEventListener("input", () => go(Number(slider.value)));
  $("first").addEventListener("click", () => go(0));
  $("last").addEventListener("click", () => go(last));
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("prev-hand").addEventListener("click", () => handJump(-1));
  $("next-hand").addEventListener("click", () => handJump(1));
  document.addEventListener("keydown", (e) => {
    const moves = {
      ArrowLeft: () => go(step - 1),
      ArrowRight: () => go(step + 1),
      Home: () => go(0),
      End: () => go(last),
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

  const m = /step=(\d+|end)/.exec(location.hash);
  go(!m ? (D.live ? last : 0) : m[1] === "end" ? last : Number(m[1]));
  if (D.live && D.refresh) {
    // a running match: reload for the new events while the viewer follows the last step
    setInterval(() => {
      if (step === last) {
        history.replaceState(null, "", "#step=end");
        location.reload();
      }
    }, D.refresh * 1000);
  }
  document.body.dataset.ready = "1";
})();
