/** The page's whole style, inline: the report must open from a CI artifact with no network. */
export const STYLE = `
:root { --fail: #b00020; --warn: #8a5a00; --pass: #176f2c; --skip: #666; --line: #ddd; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1b1b; }
main { padding: 0 1.5rem 3rem; }
h1 { font-size: 1.4rem; margin: 1rem 1.5rem .25rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .25rem; }
.meta { color: #555; font-weight: normal; }
.verdict { margin: 0 1.5rem .5rem; font-weight: 600; }
.verdict.fail { color: var(--fail); } .verdict.pass { color: var(--pass); }
#filters { position: sticky; top: 0; z-index: 2; background: #fafafa; border-bottom: 1px solid var(--line);
  padding: .5rem 1.5rem; display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; align-items: center; }
#filters fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .2rem .8rem; align-items: center; }
#filters legend { float: left; font-weight: 600; margin-right: .4rem; padding: 0; }
#filters label { white-space: nowrap; cursor: pointer; }
#filters button { font: inherit; padding: .1rem .5rem; cursor: pointer; }
#shown { color: #555; }
.count { color: #555; }
table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
table.checks { table-layout: fixed; }
table.checks th:nth-child(1) { width: 4.5em; } table.checks th:nth-child(2) { width: 24%; }
table.checks th:nth-child(3) { width: 16%; } table.checks th:nth-child(4) { width: 4em; }
table.checks th:nth-child(5) { width: 5.5em; }
td.num { text-align: right; white-space: nowrap; }
td.id code { font-weight: 600; word-break: break-all; }
.desc { color: #555; font-size: 12px; }
.label, .note { color: #555; font-size: 12px; margin-top: .25rem; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.35 ui-monospace, monospace; }
.repro { margin-top: .3rem; font-size: 12px; } .repro code { background: #f1f1f1; padding: 0 .2rem; word-break: break-all; }
.baseline { margin-top: .3rem; font-size: 12px; font-weight: 600; color: #555; }
.baseline.stale { color: var(--fail); } .baseline.not-reproduced { color: var(--warn); }
.badge { display: inline-block; min-width: 3.2em; text-align: center; font-weight: 600; text-transform: uppercase;
  font-size: 12px; border-radius: 3px; padding: 0 .3rem; color: #fff; }
.pass .badge, .badge.pass { background: var(--pass); } .fail .badge, .badge.fail { background: var(--fail); }
.warn .badge, .badge.warn { background: var(--warn); } .skip .badge, .badge.skip { background: var(--skip); }
tbody.check.fail > tr { background: #fff3f3; } tbody.check.warn > tr { background: #fffaf0; }
tr.detail > td { border-top: 0; padding: .2rem .5rem .8rem 2rem; }
body.hide-pass tbody.check.pass, body.hide-fail tbody.check.fail,
body.hide-warn tbody.check.warn, body.hide-skip tbody.check.skip { display: none; }
section.suite[hidden], .empty[hidden] { display: none; }
.empty { color: #555; font-style: italic; margin: .5rem 0; }
.banner { margin: .5rem 0; padding: .4rem .6rem; border-left: 4px solid var(--skip); background: #f6f6f6; }
.banner.fail { border-color: var(--fail); background: #fff3f3; } .banner.warn { border-color: var(--warn); background: #fffaf0; }
.banner pre { margin-top: .3rem; }
.kind, .tier { font-size: 11px; color: #555; margin-top: .2rem; } .kind.not-exercised { color: var(--warn); font-weight: 600; }
ul.labels { margin: .3rem 0 0; padding-left: 1.2rem; font-size: 12px; }
.diff { margin: .3rem 0; content-visibility: auto; contain-intrinsic-size: auto 160px; } .diff pre { background: #fff; border: 1px solid var(--line); padding: .3rem; max-height: 24rem; overflow: auto; }
.diff .del { background: #ffe6e6; } .diff .add { background: #e6ffea; } .diff .fold { color: #777; font-style: italic; }
.diff .sign { display: inline-block; width: 1.2em; color: #777; user-select: none; }
.diff .del mark { background: #ffb3b3; } .diff .add mark { background: #a6f0b4; }
figure.evidence { content-visibility: auto; contain-intrinsic-size: auto 320px; margin: .5rem 0 0; background: #fff; border: 1px solid var(--line); padding: .4rem .5rem; }
figcaption { font-weight: 600; margin-bottom: .3rem; }
.scroll { overflow-x: auto; }
svg.timeline .axis { stroke: #444; stroke-width: 1.5; }
svg.timeline .tick { font: 11px ui-monospace, monospace; fill: #444; }
svg.timeline .tick-mark { stroke: #444; }
svg.timeline .fan { stroke: #bbb; stroke-width: 1; }
svg.timeline .flabel { font: 11px ui-monospace, monospace; fill: #333; }
svg.timeline circle { stroke: #fff; stroke-width: 1; }
svg.timeline .frame:hover .fan { stroke: #333; } svg.timeline .frame:hover circle { stroke: #000; }
svg.timeline .frame.marked .fan, svg.timeline .frame.marked .tick-mark { stroke: var(--fail); stroke-width: 2.5; }
svg.timeline .frame.marked circle { fill: var(--fail); stroke: #000; stroke-width: 2; }
svg.timeline .frame.marked .flabel { fill: var(--fail); font-weight: 700; }
.k-message circle { fill: #1f4e9c; } .k-block circle { fill: #5b8bd9; } .k-delta circle { fill: #9bb9e8; }
.k-mdelta circle { fill: #6a3d9a; } .k-ping circle { fill: #aaa; } .k-comment circle { fill: #ddd; }
.k-error circle { fill: #e07000; } .k-rpc circle { fill: #2a9d8f; } .k-other circle { fill: #c9a227; }
.frame-list .list-wrap { max-height: 22rem; overflow: auto; }
table.list td, table.list th { padding: .1rem .4rem; font-size: 12px; }
table.list tr.marked td { background: #ffd6d6; font-weight: 600; outline: 2px solid var(--fail); }
.sessions { display: grid; gap: .3rem .8rem; align-items: start; }
.session-head { font-weight: 600; border-bottom: 2px solid #444; padding-bottom: .2rem; word-break: break-all; }
.msg { border: 1px solid var(--line); border-radius: 4px; padding: .2rem .4rem; background: #f8fbff; }
.msg.received { background: #f6fff8; }
.msg .arrow { font-weight: 600; } .msg.sent .arrow { color: #1f4e9c; } .msg.received .arrow { color: #176f2c; }
.msg.marked { border: 2px solid var(--fail); background: #ffe6e6; }
.msg.marked .arrow { color: var(--fail); }
`;
