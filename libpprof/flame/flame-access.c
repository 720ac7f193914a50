/* The stack tree's read-only accessors (pprof/flame.h). */
#include "flame-private.h"

size_t
pprof_flame_count(const pprof_flame_tree *t)
{
    return t ? t->n : 0;
}

pprof_flame_node
pprof_flame_node_at(const pprof_flame_tree *t, size_t i)
{
    pprof_flame_node n = {PPROF_FLAME_NONE, 0, 0, 0, 0, false, PPROF_FLAME_KIND_NATIVE};
    if (!t || i >= t->n)
        return n;
    n.parent = t->parent[i] == UINT32_MAX ? PPROF_FLAME_NONE : t->parent[i];
    n.end = t->end[i];
    n.depth = t->depth[i];
    n.n_children = t->n_children[i];
    n.name_id = t->name[i];
    n.is_inline = t->inl[i];
    n.kind = pprof__flame_node_kind(t, i);
    return n;
}

size_t
pprof_flame_names(const pprof_flame_tree *t)
{
    return t ? t->n_names : 0;
}

pprof_flame_name
pprof_flame_name_at(const pprof_flame_tree *t, size_t i)
{
    if (!t || i >= t->n_names)
        return (pprof_flame_name){"", 0, "", 0, PPROF_FLAME_KIND_NATIVE};
    return t->names[i];
}

size_t
pprof_flame_types(const pprof_flame_tree *t)
{
    return t ? t->nt : 0;
}

pprof_flame_type
pprof_flame_type_at(const pprof_flame_tree *t, size_t i)
{
    if (!t || i >= t->nt)
        return (pprof_flame_type){"", ""};
    return t->types[i];
}

size_t
pprof_flame_default_type(const pprof_flame_tree *t)
{
    return t ? t->default_type : 0;
}

bool
pprof_flame_has_base(const pprof_flame_tree *t)
{
    return t && t->value[1];
}

static int64_t
at(const pprof_flame_tree *t, int64_t *const arr[2], size_t i, size_t n, size_t type, bool base)
{
    if (!t || i >= n || type >= t->nt || !arr[base])
        return 0;
    return arr[base][i * t->nt + type];
}

int64_t
pprof_flame_value(const pprof_flame_tree *t, size_t node, size_t type, bool base)
{
    return t ? at(t, t->value, node, t->n, type, base) : 0;
}

int64_t
pprof_flame_self(const pprof_flame_tree *t, size_t node, size_t type, bool base)
{
    return t ? at(t, t->self, node, t->n, type, base) : 0;
}

int64_t
pprof_flame_flat(const pprof_flame_tree *t, size_t name_id, size_t type, bool base)
{
    return t ? at(t, t->flat, name_id, t->n_names, type, base) : 0;
}

int64_t
pprof_flame_cum(const pprof_flame_tree *t, size_t name_id, size_t type, bool base)
{
    return t ? at(t, t->cum, name_id, t->n_names, type, base) : 0;
}
