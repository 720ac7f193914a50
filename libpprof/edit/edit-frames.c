/* Frame operations with the meaning of google/pprof's profile package: FilterSamplesByName
 * (focus, ignore, hide, show), ShowFrom, Prune (drop_frames/keep_frames, RemoveUninteresting)
 * and PruneFrom. Each first decides per location, on the location's current lines, then cuts
 * or filters each sample's stack; a location's lines are narrowed in place when the kept lines
 * are contiguous and rewritten only otherwise. */
#include "edit-private.h"

/* ---------------------------------------------------------------- shared helpers */

static const pprof_function *
line_fn(const pprof__ed *e, const pprof_line *ln)
{
    if (!ln->function_id)
        return NULL;
    uint32_t fi = ed_fn(e, ln->function_id);
    return fi == PPROF_NONE ? NULL : &PPROF__AT(e->w->functions, pprof_function, fi);
}

static pprof__location *
loc_at(const pprof__ed *e, size_t i)
{
    return &PPROF__AT(e->w->locations, pprof__location, i);
}

static const pprof_line *
loc_lines(const pprof__ed *e, const pprof__location *l)
{
    return ed_ptr(e->w->lines.data, sizeof(pprof_line), l->line_off);
}

/* Go's Line.Function name or file name matches (Location.matchesName, per line). */
static bool
line_matches(pprof__ed *e, ed_rx *r, const pprof_line *ln)
{
    const pprof_function *f = line_fn(e, ln);
    return f && (ed_rx_str(e, r, f->name) || ed_rx_str(e, r, f->filename));
}

static bool
mapping_matches(pprof__ed *e, ed_rx *r, const pprof__location *l)
{
    uint32_t mi = ed_map(e, l->mapping_id);
    return mi != PPROF_NONE &&
           ed_rx_str(e, r, PPROF__AT(e->w->mappings, pprof_mapping, mi).filename);
}

/* Location.matchesName */
static bool
loc_matches(pprof__ed *e, ed_rx *r, const pprof__location *l)
{
    const pprof_line *ln = loc_lines(e, l);
    for (uint32_t j = 0; j < l->n_line; j++)
        if (line_matches(e, r, &ln[j]))
            return true;
    return mapping_matches(e, r, l);
}

/* Keeps the lines of location li whose keep[] is set: narrows the range when they are
 * contiguous, else appends them to w's own line table. */
static bool
keep_lines(pprof__ed *e, size_t li, const uint8_t *keep)
{
    pprof__location *l = loc_at(e, li);
    uint32_t first = UINT32_MAX, last = 0, n = 0;
    for (uint32_t j = 0; j < l->n_line; j++)
        if (keep[j]) {
            if (first == UINT32_MAX)
                first = j;
            last = j;
            n++;
        }
    if (n == l->n_line)
        return true;
    if (!n) {
        l->n_line = 0;
        return true;
    }
    if (last - first + 1 == n) {
        l->line_off += first;
        l->n_line = n;
        return true;
    }
    if (!ed_reserve(e, &e->w->lines, sizeof(pprof_line), n))
        return false;
    if (e->w->lines.len + n > UINT32_MAX) {
        e->st = pprof__error(e->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "", "too many lines");
        return false;
    }
    l = loc_at(e, li); /* the location table may not move, but the lines did */
    pprof_line *dst = ed_ptr(e->w->lines.data, sizeof(pprof_line), e->w->lines.len);
    const pprof_line *src = loc_lines(e, l);
    uint32_t k = 0;
    for (uint32_t j = 0; j < l->n_line; j++)
        if (keep[j])
            dst[k++] = src[j];
    l->line_off = (uint32_t)e->w->lines.len;
    l->n_line = n;
    e->w->lines.len += n;
    return true;
}

bool
ed_set_stack(pprof__ed *e, pprof__sample *s, const uint64_t *ids, size_t n)
{
    if (n <= s->n_loc && ed_writable(e, ED_B_STACK)) {
        /* a sample's range is its own (decoded or appended for it alone): shrink in place */
        if (n)
            memmove(ed_ptr(e->w->stack.data, sizeof(uint64_t), s->loc_off), ids,
                    n * sizeof(uint64_t));
        s->n_loc = (uint32_t)n;
        return true;
    }
    if (!ed_reserve(e, &e->w->stack, sizeof(uint64_t), n))
        return false;
    if (e->w->stack.len + n > UINT32_MAX) {
        e->st = pprof__error(e->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                             "the edited stacks exceed 2^32 location ids");
        return false;
    }
    if (n)
        memcpy(ed_ptr(e->w->stack.data, sizeof(uint64_t), e->w->stack.len), ids,
               n * sizeof(uint64_t));
    s->loc_off = (uint32_t)e->w->stack.len;
    s->n_loc = (uint32_t)n;
    e->w->stack.len += n;
    return true;
}

static uint8_t *
zalloc(pprof__ed *e, size_t n)
{
    uint8_t *p = pprof__malloc(e->a, n ? n : 1);
    if (!p) {
        ed_nomem(e);
        return NULL;
    }
    memset(p, 0, n ? n : 1);
    return p;
}

static bool
own_locations(pprof__ed *e)
{
    return ed_own(e, &e->w->locations, sizeof(pprof__location));
}

static uint32_t
max_lines(const pprof__ed *e)
{
    uint32_t m = 0;
    for (size_t i = 0; i < e->w->locations.len; i++)
        if (loc_at(e, i)->n_line > m)
            m = loc_at(e, i)->n_line;
    return m;
}

/* ---------------------------------------------------------------- FilterSamplesByName */

/* Location i's FI_* state under focus and ignore, on its current lines: ignore first, then
 * focus (no focus pattern: every location not ignored is focused). */
uint8_t
ed_focus_state(pprof__ed *e, size_t i)
{
    ed_rx *focus = e->focus.re ? &e->focus : NULL, *ignore = e->ignore.re ? &e->ignore : NULL;
    const pprof__location *l = loc_at(e, i);
    if (ignore && loc_matches(e, ignore, l))
        return FI_IGNORE;
    if (!focus || loc_matches(e, focus, l))
        return FI_FOCUS;
    return FI_NONE;
}

/* hide and show narrow the location's lines (Go rewrites loc.Line); hidden: none left. */
static bool
hide_show(pprof__ed *e, size_t li, uint8_t *keep, uint8_t *hidden, bool *hm, bool *hnm)
{
    ed_rx *hide = e->hide.re ? &e->hide : NULL, *show = e->show.re ? &e->show : NULL;
    pprof__location *l = loc_at(e, li);
    if (hide && loc_matches(e, hide, l)) {
        *hm = true;
        /* Location.unmatchedLines: a matching mapping hides every line */
        bool all = mapping_matches(e, hide, l);
        const pprof_line *ln = loc_lines(e, l);
        for (uint32_t j = 0; j < l->n_line; j++)
            keep[j] = !all && !line_matches(e, hide, &ln[j]);
        if (!keep_lines(e, li, keep))
            return false;
        l = loc_at(e, li);
        if (!l->n_line)
            hidden[li] = 1;
    }
    if (show) {
        /* Location.matchedLines: a matching mapping keeps every line; lines without a
         * function are kept */
        bool all = mapping_matches(e, show, l);
        const pprof_line *ln = loc_lines(e, l);
        for (uint32_t j = 0; j < l->n_line; j++)
            keep[j] = all || !line_fn(e, &ln[j]) || line_matches(e, show, &ln[j]);
        if (!keep_lines(e, li, keep))
            return false;
        l = loc_at(e, li);
        if (!l->n_line)
            hidden[li] = 1;
        else
            *hnm = true;
    }
    return true;
}

pprof_status
ed_filter_names(pprof__ed *e)
{
    ed_rx *focus = e->focus.re ? &e->focus : NULL, *ignore = e->ignore.re ? &e->ignore : NULL;
    size_t nl = e->w->locations.len;
    if (e->pre.on) { /* the batch holds only samples kept on the same states (edit.c) */
        if (focus)
            ed_matched(e, ED_NM_FOCUS, e->pre.focus_matched);
        if (ignore)
            ed_matched(e, ED_NM_IGNORE, e->pre.ignore_matched);
        return PPROF_OK;
    }
    if (!focus && !ignore && !e->hide.re && !e->show.re) {
        /* every location is "focused": only the samples without one go */
        size_t out = 0;
        for (size_t i = 0; i < e->w->samples.len; i++)
            if (ed_samples(e)[i].n_loc)
                ed_samples(e)[out++] = ed_samples(e)[i];
        e->w->samples.len = out;
        return PPROF_OK;
    }
    if ((e->hide.re || e->show.re) && !own_locations(e))
        return e->st;
    uint8_t *state = zalloc(e, 2 * nl), *hidden = state ? state + nl : NULL;
    uint8_t *keep = zalloc(e, max_lines(e));
    bool fm = false, im = false, hm = false, hnm = false, any_hidden = false;
    for (size_t i = 0; state && keep && i < nl && !e->st; i++) {
        state[i] = ed_focus_state(e, i);
        im |= state[i] == FI_IGNORE;
        fm |= state[i] == FI_FOCUS;
        if (!hide_show(e, i, keep, hidden, &hm, &hnm))
            break;
        any_hidden |= hidden[i];
    }
    pprof__free(e->a, keep);
    uint64_t *scratch = NULL;
    if (!e->st && any_hidden) {
        size_t most = 0;
        for (size_t i = 0; i < e->w->samples.len; i++)
            if (ed_samples(e)[i].n_loc > most)
                most = ed_samples(e)[i].n_loc;
        if (!(scratch = pprof__malloc(e->a, (most + 1) * sizeof(uint64_t))))
            ed_nomem(e);
    }
    /* Ids 1..n in table order and no location added: a location's index is its id - 1, and
     * with no ignore pattern the first focused location decides. This loop visits every stack
     * entry of every sample, and most samples match nothing. */
    const pprof__idmap *li = &e->in->loc_idx;
    bool by_id = li->dense && nl == e->n_loc0 && nl == li->mask + 1;
    size_t out = 0;
    for (size_t i = 0; !e->st && i < e->w->samples.len; i++) {
        pprof__sample s = ed_samples(e)[i];
        const uint64_t *st = ed_stack(e, &s);
        bool f = !focus && !ignore && s.n_loc, ig = false; /* else every location is focused */
        if (by_id && !ignore) {
            for (uint32_t j = 0; focus && j < s.n_loc; j++)
                if (st[j] - 1 <= li->mask && state[st[j] - 1] == FI_FOCUS) {
                    f = true;
                    break;
                }
        }
        for (uint32_t j = 0; !(by_id && !ignore) && (focus || ignore) && j < s.n_loc && !ig; j++) {
            uint8_t v = state[ed_loc(e, st[j])];
            f |= v == FI_FOCUS;
            ig = v == FI_IGNORE;
        }
        if (!f || ig)
            continue;
        if (any_hidden) {
            size_t k = 0;
            for (uint32_t j = 0; j < s.n_loc; j++)
                if (!hidden[ed_loc(e, st[j])])
                    scratch[k++] = st[j];
            if (!k)
                continue;
            if (k < s.n_loc && !ed_set_stack(e, &s, scratch, k))
                break;
        }
        ed_samples(e)[out++] = s;
    }
    if (!e->st)
        e->w->samples.len = out;
    pprof__free(e->a, scratch);
    pprof__free(e->a, state);
    if (e->st)
        return e->st;
    if (e->focus.re)
        ed_matched(e, ED_NM_FOCUS, fm);
    if (ignore)
        ed_matched(e, ED_NM_IGNORE, im);
    if (e->hide.re)
        ed_matched(e, ED_NM_HIDE, hm);
    if (e->show.re)
        ed_matched(e, ED_NM_SHOW, hnm);
    return PPROF_OK;
}

/* ---------------------------------------------------------------- ShowFrom */

pprof_status
ed_show_from(pprof__ed *e)
{
    size_t nl = e->w->locations.len;
    if (!own_locations(e))
        return e->st;
    uint8_t *from = zalloc(e, nl);
    bool matched = false;
    for (size_t i = 0; from && i < nl && !e->st; i++) {
        pprof__location *l = loc_at(e, i);
        if (mapping_matches(e, &e->show_from, l)) {
            from[i] = 1;
        } else {
            /* Location.lastMatchedLineIndex: keep the lines up to the caller-most match */
            const pprof_line *ln = loc_lines(e, l);
            for (uint32_t j = l->n_line; j-- > 0;)
                if (line_matches(e, &e->show_from, &ln[j])) {
                    l->n_line = j + 1;
                    from[i] = 1;
                    break;
                }
        }
        matched |= from[i];
    }
    size_t out = 0;
    for (size_t i = 0; !e->st && i < e->w->samples.len; i++) {
        pprof__sample s = ed_samples(e)[i];
        const uint64_t *st = ed_stack(e, &s);
        for (uint32_t j = s.n_loc; j-- > 0;)
            if (from[ed_loc(e, st[j])]) {
                s.n_loc = j + 1;
                ed_samples(e)[out++] = s;
                break;
            }
    }
    if (!e->st)
        e->w->samples.len = out;
    pprof__free(e->a, from);
    if (!e->st)
        ed_matched(e, ED_NM_SHOWFROM, matched);
    return e->st;
}

/* ---------------------------------------------------------------- Prune, PruneFrom */

/* Go's simplifyFunc: the name without a leading '.' (PPC ELF v1) and without its argument
 * list, found as the first '(' that does not start "(anonymous namespace)" and is not part of
 * "operator()". */
static size_t
simplified_len(const char *s, size_t n, size_t *skip)
{
    static const char anon[] = "(anonymous namespace)", op[] = "operator()";
    *skip = n && s[0] == '.';
    for (size_t i = *skip; i < n;) {
        if (n - i >= sizeof(anon) - 1 && !memcmp(s + i, anon, sizeof(anon) - 1)) {
            i += sizeof(anon) - 1;
        } else if (n - i >= sizeof(op) - 1 && !memcmp(s + i, op, sizeof(op) - 1)) {
            i += sizeof(op) - 1;
        } else if (s[i] == '(') {
            return i - *skip;
        } else {
            i++;
        }
    }
    return n - *skip;
}

/* Whether r matches the simplified form of string i, memoized per string index in memo
 * (bit 1: decided, bit 2: matches; bits 4 and 8 are the same for keep_frames). */
static bool
simplified_matches(pprof__ed *e, ed_rx *r, uint8_t *memo, int64_t i)
{
    if (!(memo[i] & 1)) {
        pprof_string s = ed_str(e, i);
        size_t skip, n = simplified_len(s.data, s.len, &skip);
        memo[i] |= (uint8_t)(1 | (ed_rx_bytes(e, r, ed_ptr(s.data, 1, skip), n) ? 2 : 0));
    }
    return memo[i] & 2;
}

/* Profile.Prune's test for one line: a named function whose simplified name matches drop and
 * not keep. memo holds the answer per name string. */
static bool
prune_line(pprof__ed *e, ed_rx *drop, ed_rx *keep, uint8_t *memo, const pprof_line *ln)
{
    const pprof_function *f = line_fn(e, ln);
    if (!f || !ed_str(e, f->name).len)
        return false;
    if (!simplified_matches(e, drop, memo, f->name))
        return false;
    if (keep && !(memo[f->name] & 4)) {
        pprof_string s = ed_str(e, f->name);
        size_t skip, n = simplified_len(s.data, s.len, &skip);
        memo[f->name] |= (uint8_t)(4 | (ed_rx_bytes(e, keep, ed_ptr(s.data, 1, skip), n) ? 8 : 0));
    }
    return !keep || !(memo[f->name] & 8);
}

static bool
simplified_matches_prefix(pprof__ed *e, ed_rx *r, uint8_t *memo, const pprof_line *ln)
{
    const pprof_function *f = line_fn(e, ln);
    return f && ed_str(e, f->name).len && simplified_matches(e, r, memo, f->name);
}

enum { PR_BENEATH = 1, PR_WHOLE = 2 };

pprof_status
ed_prune(pprof__ed *e, const char *drop_s, const char *keep_s, const char *option)
{
    ed_rx dl = {0}, kl = {0}, *drop = &e->drop, *keep = e->keep.re ? &e->keep : NULL;
    if (drop_s != e->o.drop_frames) {
        /* the profile's own fields, compiled here (RemoveUninteresting) */
        if (ed_rx_compile(e, &dl, option, drop_s, true) ||
            (keep_s && ed_rx_compile(e, &kl, "keep_frames of the profile", keep_s, true))) {
            ed_rx_free(e, &dl);
            ed_rx_free(e, &kl);
            return e->st;
        }
        drop = &dl;
        keep = keep_s ? &kl : NULL;
    }
    size_t nl = e->w->locations.len;
    uint8_t *how = NULL, *memo = NULL;
    if (own_locations(e) && (how = zalloc(e, nl)))
        memo = zalloc(e, e->w->strings.len);
    for (size_t i = 0; memo && i < nl && !e->st; i++) {
        pprof__location *l = loc_at(e, i);
        const pprof_line *ln = loc_lines(e, l);
        uint32_t j = l->n_line;
        while (j-- > 0 && !prune_line(e, drop, keep, memo, &ln[j])) {
        }
        if (j == UINT32_MAX)
            continue;
        how[i] = PR_BENEATH;
        if (j == l->n_line - 1) {
            how[i] |= PR_WHOLE;
        } else {
            l->line_off += j + 1;
            l->n_line -= j + 1;
        }
    }
    for (size_t i = 0; memo && !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        const uint64_t *st = ed_stack(e, s);
        /* from the root: frames before the first user frame are never pruned */
        bool user = false;
        for (uint32_t j = s->n_loc; j-- > 0;) {
            uint8_t h = how[ed_loc(e, st[j])];
            if (!h) {
                user = true;
                continue;
            }
            if (!user)
                continue;
            uint32_t cut = h & PR_WHOLE ? j + 1 : j;
            s->loc_off += cut;
            s->n_loc -= cut;
            break;
        }
    }
    pprof__free(e->a, memo);
    pprof__free(e->a, how);
    ed_rx_free(e, &dl);
    ed_rx_free(e, &kl);
    return e->st;
}

pprof_status
ed_prune_from(pprof__ed *e)
{
    size_t nl = e->w->locations.len;
    uint8_t *beneath = NULL, *memo = NULL;
    if (!e->prune_from_at &&
        (e->prune_from_at = (uint32_t *)zalloc(e, e->n_loc0 * sizeof(uint32_t))) == NULL)
        return e->st;
    if (own_locations(e) && (beneath = zalloc(e, nl)))
        memo = zalloc(e, e->w->strings.len);
    for (size_t i = 0; memo && i < nl && !e->st; i++) {
        pprof__location *l = loc_at(e, i);
        uint32_t at = i < e->n_loc0 ? e->prune_from_at[i] : 0;
        if (!at) {
            const pprof_line *ln = loc_lines(e, l);
            at = 1;
            for (uint32_t j = 0; j < l->n_line && at == 1; j++)
                if (simplified_matches_prefix(e, &e->prune_from, memo, &ln[j]))
                    at = 2 + j;
            if (i < e->n_loc0)
                e->prune_from_at[i] = at;
        }
        if (at > 1) {
            beneath[i] = 1;
            l->line_off += at - 2;
            l->n_line -= at - 2;
        }
    }
    for (size_t i = 0; memo && !e->st && i < e->w->samples.len; i++) {
        pprof__sample *s = &ed_samples(e)[i];
        const uint64_t *st = ed_stack(e, s);
        for (uint32_t j = 0; j < s->n_loc; j++)
            if (beneath[ed_loc(e, st[j])]) {
                s->loc_off += j;
                s->n_loc -= j;
                break;
            }
    }
    pprof__free(e->a, memo);
    pprof__free(e->a, beneath);
    return e->st;
}
