/* The SVG flame graph: standalone and interactive in the manner of flamegraph.pl's (click to
 * zoom, Reset Zoom, Search with a regular expression and "Matched: P%", Esc and "/" keys), with
 * a script of our own. Each frame is <g><title>NAME (VALUE UNIT, P%)</title><rect/><text/></g>;
 * names reach the document only as escaped text (never inside the script's CDATA section), so
 * whatever a name holds the file stays well-formed XML and nothing in it runs. Frames narrower
 * than minwidth are left out with their subtrees; their parents keep their exact values. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flame-private.h"

enum { FRAME_H = 16, FONT = 12, TOP = 2 * FONT + 22, BOTTOM = 2 * FONT + 6, PAD = 10 };

/* The script: frames are read from the document, so nothing of the data is in here. */
static const char script[] =
    "var W,inv,frames,details,matchedEl,unzoomEl,searchEl,cur=null,term=null;\n"
    "function init(){var s=document.documentElement;W=+s.getAttribute('width');"
    "inv=s.getAttribute('data-inverted')==='1';frames=[];"
    "var gs=document.getElementById('frames').getElementsByTagName('g');"
    "for(var i=0;i<gs.length;i++){var g=gs[i],r=g.getElementsByTagName('rect')[0];"
    "var t=g.getElementsByTagName('title')[0].textContent;"
    "frames.push({g:g,r:r,x:+r.getAttribute('x'),w:+r.getAttribute('width'),"
    "y:+r.getAttribute('y'),name:t.replace(/ "
    "\\([^()]*\\)$/,''),title:t,fill:r.getAttribute('fill'),"
    "tx:g.getElementsByTagName('text')[0]});"
    "g.addEventListener('click',zoomer(frames[i]));"
    "g.addEventListener('mouseover',shower(t));g.addEventListener('mouseout',shower(' '));}"
    "details=document.getElementById('details');matchedEl=document.getElementById('matched');"
    "unzoomEl=document.getElementById('unzoom');searchEl=document.getElementById('search');"
    "unzoomEl.addEventListener('click',unzoom);searchEl.addEventListener('click',search);"
    "document.addEventListener('keydown',function(e){if(e.key==='Escape'){unzoom();reset();}"
    "else if(e.key==='/'||(e.ctrlKey&&e.key==='f')){e.preventDefault();search();}});}\n"
    "function shower(t){return function(){details.textContent=t;};}\n"
    "function zoomer(f){return function(){zoom(f);};}\n"
    "function label(f,w){var n=Math.floor(w/("
    "7.08"
    "));if(n<3)return '';"
    "return f.name.length<=n?f.name:f.name.substring(0,n-2)+'..';}\n"
    "function place(f,x,w,show){f.g.style.display=show?'':'none';if(!show)return;"
    "f.r.setAttribute('x',x);f.r.setAttribute('width',w);"
    "if(f.tx){f.tx.setAttribute('x',x+3);f.tx.textContent=label(f,w);}}\n"
    "function below(a,f){return inv?f.y>a.y:f.y<a.y;}\n"
    "function zoom(z){cur=z;unzoomEl.style.opacity=1;var s=(W-2*"
    "10"
    ")/z.w;"
    "for(var i=0;i<frames.length;i++){var f=frames[i];"
    "var inside=f.x>=z.x-1e-6&&f.x+f.w<=z.x+z.w+1e-6;"
    "if(f===z||(inside&&below(z,f)))place(f,10+(f.x-z.x)*s,f.w*s,true);"
    "else if(!below(z,f)&&f.x<=z.x+1e-6&&f.x+f.w>=z.x+z.w-1e-6){place(f,10,W-20,true);"
    "f.g.style.opacity=0.5;continue;}else place(f,0,0,false);f.g.style.opacity='';}"
    "if(term)search(term);}\n"
    "function unzoom(){cur=null;unzoomEl.style.opacity=0;for(var i=0;i<frames.length;i++){"
    "var f=frames[i];f.g.style.opacity='';place(f,f.x,f.w,true);}if(term)search(term);}\n"
    "function reset(){term=null;matchedEl.textContent=' ';searchEl.textContent='Search';"
    "for(var i=0;i<frames.length;i++)frames[i].r.setAttribute('fill',frames[i].fill);}\n"
    "function search(t){if(typeof t!=='string'){t=prompt('Search (regular expression):',"
    "term||'');if(t===null)return;}if(t===''){reset();return;}var re;"
    "try{re=new RegExp(t);}catch(e){alert('Bad regular expression: '+e.message);return;}"
    "term=t;searchEl.textContent='Reset Search';var m=[];"
    "for(var i=0;i<frames.length;i++){var f=frames[i];if(re.test(f.name)){"
    "f.r.setAttribute('fill','rgb(230,0,230)');m.push(f);}else f.r.setAttribute('fill',f.fill);}"
    /* nested matches lie inside their matched ancestor's range: sum the union of ranges */
    "m.sort(function(a,b){return a.x-b.x||b.w-a.w;});var sum=0,end=-1;"
    "for(var j=0;j<m.length;j++){var a=m[j];if(a.x>=end-1e-9){sum+=a.w;end=a.x+a.w;}"
    "else if(a.x+a.w>end){sum+=a.x+a.w-end;end=a.x+a.w;}}"
    "var tot=frames.length?frames[0].w:1;"
    "matchedEl.textContent='Matched: '+(tot>0?(100*sum/tot).toFixed(1):'0.0')+'%';}\n"
    "init();\n";

typedef struct sctx {
    const pprof_flame_tree *t;
    const pprof_flame_write_options *o;
    pprof_buffer *out;
    size_t type;
    double scale;
    int64_t total;
} sctx;

static pprof_status
lit(pprof_buffer *b, const char *s)
{
    return pprof__buffer_append(b, s, strlen(s));
}

static int64_t
mag(int64_t v)
{
    return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* "1,234,567" */
static void
grouped(char *dst, int64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%" PRId64, v);
    size_t n = strlen(tmp), neg = tmp[0] == '-', digits = n - neg, w = 0;
    if (neg)
        dst[w++] = '-';
    for (size_t i = 0; i < digits; i++) {
        if (i && (digits - i) % 3 == 0)
            dst[w++] = ',';
        dst[w++] = tmp[neg + i];
    }
    dst[w] = 0;
}

static double
percent(int64_t v, int64_t total)
{
    return total ? 100.0 * (double)v / (double)mag(total) : 0;
}

/* <title>NAME (VALUE UNIT, P%)</title>, with a base "; base B, delta +D" inside the brackets */
static pprof_status
frame_title(sctx *c, size_t i)
{
    const pprof_flame_tree *t = c->t;
    const pprof_flame_name *nm = &t->names[t->name[i]];
    int64_t v = t->value[0][i * t->nt + c->type];
    char num[40];
    grouped(num, v);
    pprof_status st = lit(c->out, "<title>");
    if (!st)
        st = pprof__flame_xml_str(c->out, nm->name, nm->name_len, 4096);
    if (!st)
        st = pprof__buffer_printf(c->out, " (%s ", num);
    const char *unit = t->types[c->type].unit;
    if (!st)
        st = pprof__flame_xml_str(c->out, unit, strlen(unit), 64);
    if (!st)
        st = pprof__buffer_printf(c->out, ", %.2f%%", percent(v, c->total));
    if (!st && t->value[1]) {
        int64_t b = t->value[1][i * t->nt + c->type], d;
        if (__builtin_sub_overflow(v, b, &d))
            d = v < 0 ? INT64_MIN : INT64_MAX;
        char bn[40], dn[40];
        grouped(bn, b);
        grouped(dn, d);
        st = pprof__buffer_printf(c->out, "; base %s, delta %s%s", bn, d > 0 ? "+" : "", dn);
    }
    if (!st)
        st = lit(c->out, ")</title>");
    return st;
}

/* Differential colour: red grew, blue shrank, white unchanged; intensity |delta| / maxd. */
static void
diff_color(char *dst, double delta, double maxd)
{
    double x = maxd > 0 ? fabs(delta) / maxd : 0;
    int k = (int)(255 - 190 * (x > 1 ? 1 : x));
    if (delta > 0)
        snprintf(dst, 24, "rgb(255,%d,%d)", k, k);
    else if (delta < 0)
        snprintf(dst, 24, "rgb(%d,%d,255)", k, k);
    else
        snprintf(dst, 24, "rgb(250,250,250)");
}

static pprof_status
frame(sctx *c, size_t i, double x, double w, int depth, int height, const char *fill)
{
    double y = c->o->inverted ? TOP + (double)depth * FRAME_H
                              : (double)height - BOTTOM - (double)(depth + 1) * FRAME_H;
    pprof_status st = lit(c->out, "<g>");
    if (!st)
        st = frame_title(c, i);
    if (!st)
        st = pprof__buffer_printf(c->out,
                                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
                                  "fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
                                  x, y, w, FRAME_H - 1, fill, x + 3, y + FRAME_H - 4.5);
    /* the label: as many characters as fit at about 0.59 of the font size each */
    const pprof_flame_name *nm = &c->t->names[c->t->name[i]];
    size_t fit = (size_t)(w / (FONT * 0.59));
    if (!st && fit >= 3) {
        size_t n = nm->name_len <= fit ? nm->name_len : fit - 2;
        while (n < nm->name_len && n > 0 && ((uint8_t)nm->name[n] & 0xc0) == 0x80)
            n--; /* not inside a UTF-8 sequence */
        st = pprof__flame_xml_str(c->out, nm->name, n, n);
        if (!st && n < nm->name_len)
            st = lit(c->out, "..");
    }
    if (!st)
        st = lit(c->out, "</text></g>\n");
    return st;
}

static pprof_status
head(sctx *c, unsigned width, int height)
{
    const pprof_flame_write_options *o = c->o;
    const char *title = o->title         ? o->title
                        : c->t->value[1] ? "Differential Flame Graph"
                                         : "Flame Graph";
    pprof_status st = pprof__buffer_printf(
        c->out,
        "<?xml version=\"1.0\" standalone=\"no\"?>\n"
        "<svg version=\"1.1\" width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" "
        "data-inverted=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
        "<style type=\"text/css\">text{font-family:Verdana,sans-serif;font-size:%dpx;fill:#000}"
        "#frames g:hover rect{stroke:#000;stroke-width:0.5}#frames g{cursor:pointer}"
        "#unzoom,#search{cursor:pointer}#unzoom{opacity:0}#title{font-size:17px}</style>\n"
        "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n"
        "<text id=\"title\" x=\"%u\" y=\"%d\" text-anchor=\"middle\">",
        width, height, width, height, o->inverted ? 1 : 0, FONT, width, height, width / 2,
        FONT * 2);
    if (!st)
        st = pprof__flame_xml_str(c->out, title, strlen(title), 4096);
    if (!st)
        st = pprof__buffer_printf(
            c->out, "</text>\n<text id=\"subtitle\" x=\"%u\" y=\"%d\" text-anchor=\"middle\">",
            width / 2, FONT * 2 + 16);
    const pprof_flame_type *ty = &c->t->types[c->type];
    if (!st)
        st = pprof__flame_xml_str(c->out, ty->type, strlen(ty->type), 200);
    if (!st && o->source && *o->source)
        st = lit(c->out, " of ");
    if (!st && o->source)
        st = pprof__flame_xml_str(c->out, o->source, strlen(o->source), 1024);
    if (!st)
        st = pprof__buffer_printf(c->out,
                                  "</text>\n<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
                                  "<text id=\"unzoom\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
                                  "<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n"
                                  "<text id=\"matched\" x=\"%u\" y=\"%d\"> </text>\n",
                                  PAD, height - FONT / 2, PAD, FONT * 2, width - 110, FONT * 2,
                                  width - 110, height - FONT / 2);
    return st;
}

pprof_status
pprof__flame_write_svg(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                       pprof_buffer *out, pprof_error *err)
{
    unsigned width = o->width ? o->width : 1200;
    if (width < 2 * PAD + 10)
        width = 2 * PAD + 10;
    double usable = width - 2 * PAD;
    double mw = o->minwidth < 0 ? 0.1 : o->minwidth;
    double frac = o->minwidth_percent ? mw / 100 : mw / usable;
    sctx c = {t, o, out, t->default_type, 0, t->value[0][t->default_type]};
    pprof__flame_keep k;
    pprof_status st = pprof__flame_keep_select(t, frac, 0, &o->allocator, &k, err);
    if (st)
        return st;
    int palette = pprof__flame_palette(o->colors);
    double *x = pprof__malloc(&o->allocator, (t->n ? t->n : 1) * sizeof(double));
    double *next = pprof__malloc(&o->allocator, (t->n ? t->n : 1) * sizeof(double));
    if (!x || !next) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    /* widths are |value|; the root spans the usable width */
    int64_t root = mag(c.total);
    c.scale = root ? usable / (double)root : 0;
    size_t maxdepth = 0;
    double maxd = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (k.keep && !k.keep[i])
            continue;
        maxdepth = t->depth[i] > maxdepth ? t->depth[i] : maxdepth;
        if (t->value[1]) {
            double d = fabs((double)t->value[0][i * t->nt + c.type] -
                            (double)t->value[1][i * t->nt + c.type]);
            maxd = d > maxd ? d : maxd;
        }
    }
    int height = (int)((maxdepth + 1) * FRAME_H + TOP + BOTTOM);
    st = head(&c, width, height);
    if (!st && !root)
        st = pprof__buffer_printf(out,
                                  "<text id=\"empty\" x=\"%u\" y=\"%d\" text-anchor=\"middle\">"
                                  "No samples</text>\n",
                                  width / 2, TOP + FONT);
    if (!st)
        st = lit(out, "<g id=\"frames\">\n");
    uint64_t rng = 1;
    for (size_t i = 0; i < t->n && !st && root; i++) {
        if (k.keep && !k.keep[i]) {
            i = t->end[i] - 1;
            continue;
        }
        x[i] = i ? next[t->parent[i]] : PAD;
        double w = (double)mag(t->value[0][i * t->nt + c.type]) * c.scale;
        next[i] = x[i];
        if (i)
            next[t->parent[i]] += w;
        char fill[24];
        if (t->value[1])
            diff_color(fill,
                       (double)t->value[0][i * t->nt + c.type] -
                           (double)t->value[1][i * t->nt + c.type],
                       maxd);
        else
            pprof__flame_color(fill, palette, o->hash, t, i, &rng);
        st = frame(&c, i, x[i], w, (int)t->depth[i], height, fill);
    }
    if (!st)
        st = lit(out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    if (!st)
        st = lit(out, script);
    if (!st)
        st = lit(out, "]]></script>\n</svg>\n");
out:
    pprof__free(&o->allocator, x);
    pprof__free(&o->allocator, next);
    pprof__flame_keep_free(&o->allocator, &k);
    if (st == PPROF_E_NOMEM)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory writing the SVG");
    return st;
}
