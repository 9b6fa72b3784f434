/**
 * The panel's look: one style sheet, every rule under the root class `.dma` (the standalone page
 * adds `.dma-page` on its body). Colours come from the DSH theme variables when the panel sits in
 * the DSH settings, with light fallbacks for the standalone page. Installed once per document:
 * as a `<style>` tag in DSH (the host's plugins do the same), as a constructed sheet on the
 * standalone page, whose CSP allows no inline `<style>`.
 */

const CSS = `
.dma{--dma-fg:var(--dsw-alias-label-primary,#1f2329);--dma-fg2:var(--dsw-alias-label-secondary,#4e5969);--dma-fg3:var(--dsw-alias-label-tertiary,#86909c);
--dma-border:var(--dsw-alias-border-l2,#e5e6eb);--dma-card:var(--dsw-alias-bg-layer-3,#fff);--dma-input:var(--dsw-alias-bg-layer-1,#fff);
--dma-subtle:var(--dsw-alias-bg-module-platform,#f7f8fa);--dma-hover:var(--dsw-alias-interactive-bg-hover,#f2f3f5);
--dma-accent:var(--dsw-alias-state-business-primary,#4d6bfe);--dma-danger:var(--dsw-alias-state-error-primary,#d54941);
--dma-ok:var(--dsw-alias-state-success-primary,#2ba471);--dma-warn:var(--dsw-alias-state-warning-primary,#c87a0a);
--dma-mono:var(--ds-font-family-code,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace);
box-sizing:border-box;width:100%;max-width:760px;color:var(--dma-fg);font-size:13px;line-height:20px;display:flex;flex-direction:column;gap:14px;min-width:0}
.dma *,.dma *::before,.dma *::after{box-sizing:border-box}
.dma h3{margin:0;font-size:14px;font-weight:600;line-height:22px}
.dma p{margin:0}
.dma code,.dma .dma-mono{font-family:var(--dma-mono);font-size:12px}
.dma [hidden]{display:none!important}
.dma-head{display:flex;flex-direction:column;gap:10px}
.dma-pathrow{display:flex;align-items:center;gap:8px;flex-wrap:wrap;min-width:0}
.dma-pathlabel{color:var(--dma-fg3);font-size:12px;flex:none}
.dma-path{flex:1 1 240px;min-width:0;overflow-wrap:anywhere;color:var(--dma-fg2);background:var(--dma-subtle);border-radius:6px;padding:3px 8px}
.dma-headactions{display:flex;gap:6px;flex:none}
.dma-stats{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));gap:8px;margin:0;padding:0;list-style:none}
.dma-stat{border:1px solid var(--dma-border);background:var(--dma-card);border-radius:10px;padding:8px 10px;min-width:0}
.dma-stat-n{display:block;font-size:20px;line-height:26px;font-weight:600;font-variant-numeric:tabular-nums}
.dma-vectors{margin:8px 0 0;color:var(--dma-fg3);font-size:12px;line-height:16px}.dma-vectors[data-alert="true"]{color:var(--dma-fg2)}
.dma-stat-l{display:block;color:var(--dma-fg3);font-size:12px;line-height:16px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.dma-stat[data-alert=true] .dma-stat-n{color:var(--dma-warn)}
.dma-tabs{display:flex;flex-wrap:wrap;gap:4px;border-bottom:1px solid var(--dma-border)}
.dma-tab{appearance:none;background:none;border:0;border-bottom:2px solid transparent;margin-bottom:-1px;padding:7px 10px;font:inherit;color:var(--dma-fg2);cursor:pointer;white-space:nowrap}
.dma-tab:hover{color:var(--dma-fg)}
.dma-tab[aria-selected=true]{color:var(--dma-accent);border-bottom-color:var(--dma-accent);font-weight:600}
.dma-tab:focus-visible,.dma-btn:focus-visible,.dma-chip:focus-visible{outline:2px solid var(--dma-accent);outline-offset:1px}
.dma-body{display:flex;flex-direction:column;gap:14px;min-width:0}
.dma-card{border:1px solid var(--dma-border);background:var(--dma-card);border-radius:10px;padding:14px 16px;display:flex;flex-direction:column;gap:10px;min-width:0}
.dma-hint{color:var(--dma-fg3);font-size:12px;line-height:18px}
.dma-btn{appearance:none;display:inline-flex;align-items:center;justify-content:center;gap:6px;height:30px;padding:0 12px;border:1px solid var(--dma-border);border-radius:8px;background:var(--dma-card);color:var(--dma-fg);font:inherit;font-size:13px;cursor:pointer;white-space:nowrap}
.dma-btn:hover{background:var(--dma-hover)}
.dma-btn:disabled{opacity:.55;cursor:default}
.dma-btn-primary{background:var(--dma-accent);border-color:var(--dma-accent);color:#fff}
.dma-btn-primary:hover{background:var(--dma-accent);filter:brightness(1.08)}
.dma-btn-danger{color:var(--dma-danger);border-color:color-mix(in srgb,var(--dma-danger) 45%,transparent)}
.dma-btn-danger:hover{background:color-mix(in srgb,var(--dma-danger) 8%,transparent)}
.dma-btn-ghost{border-color:transparent;background:none;color:var(--dma-fg2);height:26px;padding:0 8px}
.dma-btn-sm{height:26px;padding:0 9px;font-size:12px}
.dma-input,.dma-textarea{width:100%;min-width:0;border:1px solid var(--dma-border);border-radius:8px;background:var(--dma-input);color:var(--dma-fg);font:inherit;font-size:13px;padding:5px 10px;outline:none}
.dma-input{height:32px}
.dma-textarea{resize:vertical;min-height:64px;line-height:20px}
.dma-input:focus,.dma-textarea:focus{border-color:var(--dma-accent);box-shadow:0 0 0 2px color-mix(in srgb,var(--dma-accent) 18%,transparent)}
.dma-inline{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.dma-inline>.dma-input{flex:1 1 200px;width:auto}
.dma-actions{display:flex;gap:6px;flex-wrap:wrap;align-items:center}
.dma-result{font-size:12px;line-height:18px;padding:6px 10px;border-radius:6px;overflow-wrap:anywhere}
.dma-result-ok{background:color-mix(in srgb,var(--dma-ok) 10%,transparent);color:var(--dma-fg)}
.dma-result-error{background:color-mix(in srgb,var(--dma-danger) 9%,transparent);color:var(--dma-danger)}
.dma-error-code{font-family:var(--dma-mono);font-weight:600}
.dma-confirm{display:flex;flex-direction:column;gap:8px;padding:10px 12px;border-radius:8px;border:1px solid color-mix(in srgb,var(--dma-danger) 40%,transparent);background:color-mix(in srgb,var(--dma-danger) 5%,transparent)}
.dma-filters{display:flex;gap:6px;flex-wrap:wrap}
.dma-chip{appearance:none;border:1px solid var(--dma-border);background:var(--dma-card);color:var(--dma-fg2);border-radius:999px;padding:1px 10px;font:inherit;font-size:12px;line-height:20px;cursor:pointer}
.dma-chip:hover{background:var(--dma-hover)}
.dma-chip[aria-pressed=true]{border-color:var(--dma-accent);color:var(--dma-accent);background:color-mix(in srgb,var(--dma-accent) 8%,transparent)}
.dma-chip-n{margin-left:4px;color:var(--dma-fg3);font-variant-numeric:tabular-nums}
.dma-list{list-style:none;margin:0;padding:0;border:1px solid var(--dma-border);border-radius:10px;overflow:hidden;background:var(--dma-card)}
.dma-row{padding:10px 14px;border-top:1px solid var(--dma-border);display:flex;flex-direction:column;gap:4px;min-width:0}
.dma-row:first-child{border-top:0}
.dma-rowtop{display:flex;gap:8px;align-items:flex-start;min-width:0}
.dma-rowtitle{flex:1 1 auto;min-width:0;font-weight:600;overflow-wrap:anywhere}
.dma-rowactions{display:flex;gap:4px;flex:none;flex-wrap:wrap;justify-content:flex-end}
.dma-summary{color:var(--dma-fg2);overflow-wrap:anywhere;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
.dma-meta{display:flex;gap:6px;flex-wrap:wrap;align-items:center;color:var(--dma-fg3);font-size:12px;line-height:18px}
.dma-badge{display:inline-flex;align-items:center;border-radius:5px;padding:0 6px;font-size:11px;line-height:18px;font-weight:500;background:var(--dma-subtle);color:var(--dma-fg2);white-space:nowrap}
.dma-badge[data-status=active]{background:color-mix(in srgb,var(--dma-ok) 12%,transparent);color:var(--dma-ok)}
.dma-badge[data-status=suggested]{background:color-mix(in srgb,var(--dma-warn) 14%,transparent);color:var(--dma-warn)}
.dma-badge[data-status=conflict]{background:color-mix(in srgb,var(--dma-danger) 12%,transparent);color:var(--dma-danger)}
.dma-badge-warning{background:color-mix(in srgb,var(--dma-warn) 14%,transparent);color:var(--dma-warn)}
.dma-badge-alias{background:color-mix(in srgb,var(--dma-accent) 12%,transparent);color:var(--dma-accent)}
.dma-tag{color:var(--dma-fg2)}
.dma-tag::before{content:"#";color:var(--dma-fg3)}
.dma-details{margin-top:6px;padding:10px 12px;border-radius:8px;background:var(--dma-subtle);display:flex;flex-direction:column;gap:8px;min-width:0}
.dma-dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 14px;margin:0;font-size:12px;line-height:18px}
.dma-dl dt{color:var(--dma-fg3)}
.dma-dl dd{margin:0;min-width:0;overflow-wrap:anywhere;color:var(--dma-fg2)}
.dma-variants{margin:0;padding-left:18px}
.dma-injection{margin:0;padding:8px 10px;border-radius:6px;font-size:12px;line-height:18px;background:color-mix(in srgb,var(--dma-warn) 14%,transparent);color:var(--dma-warn)}
.dma-pre{margin:0;font-family:var(--dma-mono);font-size:12px;line-height:18px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:240px;overflow:auto;background:var(--dma-card);border:1px solid var(--dma-border);border-radius:6px;padding:8px 10px;color:var(--dma-fg2)}
.dma-sub{font-size:12px;font-weight:600;color:var(--dma-fg2)}
.dma-form{display:grid;grid-template-columns:minmax(0,1fr) 150px;gap:12px 16px;align-items:center}
.dma-field{display:flex;flex-direction:column;gap:1px;min-width:0}
.dma-field-label{font-weight:500}
.dma-switch{justify-self:end;width:18px;height:18px;accent-color:var(--dma-accent);cursor:pointer;margin:0}
.dma-form .dma-input{justify-self:end;width:150px;text-align:right;font-variant-numeric:tabular-nums}
.dma-sessions{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.dma-session{display:flex;flex-direction:column;gap:8px;padding:8px 12px;border:1px solid var(--dma-border);border-radius:8px}
.dma-sessiontop{display:flex;align-items:center;gap:10px;min-width:0}
.dma-sessiontop>div{flex:1 1 auto;min-width:0}
.dma-log{list-style:none;margin:0;padding:0;display:flex;flex-direction:column}
.dma-logrow{display:flex;align-items:center;gap:10px;padding:6px 0;border-top:1px solid var(--dma-border);min-width:0}
.dma-logrow:first-child{border-top:0}
.dma-logtime{flex:none;color:var(--dma-fg3);font-size:12px;font-variant-numeric:tabular-nums}
.dma-logq{flex:1 1 auto;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.dma-loghits{flex:none;font-size:12px;color:var(--dma-fg3)}
.dma-loghits[data-zero=true]{color:var(--dma-danger)}
.dma-rooms{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}
.dma-room{border:1px solid var(--dma-border);border-radius:8px;padding:8px 12px;display:flex;flex-direction:column;gap:6px;min-width:0}
.dma-roomhead{display:flex;align-items:baseline;gap:10px;flex-wrap:wrap;min-width:0}
.dma-roomname{font-family:var(--dma-mono);font-size:13px}
.dma-slots{list-style:none;margin:0;padding:0;display:flex;flex-direction:column}
.dma-slot{display:flex;align-items:center;gap:10px;padding:4px 0;border-top:1px solid var(--dma-border);min-width:0}
.dma-slot:first-child{border-top:0}
.dma-slotloc{flex:none;min-width:96px;color:var(--dma-accent)}
.dma-slottitle{flex:1 1 auto;min-width:0;overflow-wrap:anywhere}
.dma-badge[data-status=archived]{background:var(--dma-subtle);color:var(--dma-fg3)}
.dma-lock{align-items:flex-start;max-width:560px}
.dma-lock .dma-inline{width:100%}
.dma-empty{color:var(--dma-fg3);padding:14px;text-align:center}
.dma-badge-store{background:color-mix(in srgb,var(--dma-accent) 8%,transparent);color:var(--dma-fg2)}
.dma-badge-store[data-store=user]{background:color-mix(in srgb,#8e44ad 12%,transparent);color:#7d3c98}
.dma-edit{display:flex;flex-direction:column;gap:8px;margin-top:6px;padding:10px 12px;border-radius:8px;border:1px solid color-mix(in srgb,var(--dma-accent) 35%,transparent)}
.dma-health{display:flex;align-items:center;gap:16px;flex-wrap:wrap}
.dma-health-score{flex:none;font-size:40px;line-height:48px;font-weight:700;font-variant-numeric:tabular-nums;color:var(--dma-ok)}
.dma-health-score[data-level=fair]{color:var(--dma-warn)}.dma-health-score[data-level=poor]{color:var(--dma-danger)}
.dma-health .dma-hint{flex:1 1 240px;margin:0}
.dma-health-parts{list-style:none;margin:0;padding:0;display:flex;flex-direction:column}
.dma-health-part{display:grid;grid-template-columns:130px 40px 44px minmax(0,1fr);gap:4px 12px;align-items:baseline;padding:5px 0;border-top:1px solid var(--dma-border)}
.dma-health-part:first-child{border-top:0}
.dma-health-name{font-weight:500}
.dma-health-n,.dma-health-cost{font-variant-numeric:tabular-nums;text-align:right}
.dma-health-part[data-penalty]:not([data-penalty="0"]) .dma-health-cost{color:var(--dma-danger)}
.dma-review{display:flex;flex-direction:column;gap:8px;min-width:0}
.dma-link{appearance:none;border:0;background:none;padding:0;font:inherit;color:var(--dma-accent);cursor:pointer;text-align:left;overflow-wrap:anywhere;min-width:0}
.dma-link:hover{text-decoration:underline}
.dma-ledgerrow{flex-wrap:wrap;gap:6px 10px}
.dma-logdetail{flex:1 1 100%;min-width:0;overflow-wrap:anywhere}
@media (max-width:640px){.dma-stats{grid-template-columns:repeat(3,minmax(0,1fr))}.dma-health-part{grid-template-columns:minmax(0,1fr) 32px 32px}.dma-health-part .dma-hint{grid-column:1/-1}.dma-form{grid-template-columns:minmax(0,1fr) 110px}.dma-form .dma-input{width:110px}.dma-rowtop{flex-wrap:wrap}}
body.dma-page{margin:0;background:#f4f5f7;font-family:system-ui,-apple-system,"Segoe UI","PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC",sans-serif;-webkit-font-smoothing:antialiased}
.dma-pagebar{display:flex;align-items:center;gap:10px;max-width:808px;margin:0 auto;padding:18px 24px 0}
.dma-pagebar h1{margin:0;font-size:16px;line-height:24px;font-weight:600;color:#1f2329}
.dma-pagebar span{color:#86909c;font-size:12px}
.dma-pagemain{max-width:808px;margin:0 auto;padding:14px 24px 40px}
`

const TAG_ID = 'dsh-memory-agent/panel.css'
let adopted: CSSStyleSheet | null = null

export type StyleMode = 'tag' | 'adopted'

/** Puts the panel's style sheet into the document once. */
export function installStyles(doc: Document, mode: StyleMode): void {
  if (mode === 'adopted' && 'adoptedStyleSheets' in doc && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (adopted === null) {
      adopted = new CSSStyleSheet()
      adopted.replaceSync(CSS)
    }
    if (!doc.adoptedStyleSheets.includes(adopted)) doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, adopted]
    return
  }
  if (doc.querySelector(`style[data-plugin-css="${TAG_ID}"]`) !== null) return
  const tag = doc.createElement('style')
  tag.dataset['plugin'] = 'dsh-memory-agent'
  tag.dataset['pluginCss'] = TAG_ID
  tag.textContent = CSS
  doc.head.appendChild(tag)
}
