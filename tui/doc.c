/* doc.c: open report documents and their symbol results (kpt_doc.h). */
#include "kpt_doc.h"
#include "kpt_xalloc.h"

#include <stdlib.h>
#include <string.h>

kpt_doc *kpt_doc_find(kpt_docs *docs, int64_t id, const char *path)
{
	for (size_t i = 0; i < docs->n; i++) {
		kpt_doc *d = docs->v[i];
		if ((id >= 0 && d->id == id) || (id < 0 && d->id < 0 && path && strcmp(d->path, path) == 0)) {
			kpt_doc_retain(d);
			return d;
		}
	}
	return NULL;
}

kpt_doc *kpt_doc_add(kpt_docs *docs, int64_t id, const char *path, kp_report *r)
{
	kpt_doc *d = kpt_xcalloc(1, sizeof *d);
	docs->v = kpt_xrealloc(docs->v, (docs->n + 1) * sizeof *docs->v);
	d->serial = ++docs->next_serial;
	d->id = id;
	d->path = kpt_xstrdup(path ? path : "");
	d->refs = 1;
	docs->v[docs->n++] = d;
	if (r)
		kpt_doc_set_report(d, r);
	return d;
}

void kpt_doc_set_report(kpt_doc *d, kp_report *r)
{
	d->r = r;
	if (!d->path[0] && r->path) {
		free(d->path);
		d->path = kpt_xstrdup(r->path);
	}
	d->syms = kpt_xcalloc(r->nprocesses ? r->nprocesses : 1, sizeof *d->syms);
}

kpt_doc *kpt_doc_acquire(kpt_docs *docs, kpi_db *db, int64_t id, const char *path, kp_error *err)
{
	kpt_doc *d = kpt_doc_find(docs, id, path);
	if (d)
		return d;
	kp_report *r = NULL;
	kp_status st;
	if (id >= 0)
		st = db ? kpi_load(db, id, &r, err) : kp_error_set(err, KP_ERR_DB, 0, -1, "no index open");
	else
		st = kp_report_load(path, &r, err);
	if (st != KP_OK)
		return NULL;
	return kpt_doc_add(docs, id, path, r);
}

void kpt_doc_retain(kpt_doc *d)
{
	d->refs++;
}

void kpt_sym_clear(kpt_sym *s)
{
	for (size_t i = 0; i < s->nlines; i++) {
		free(s->lines[i].function);
		free(s->lines[i].file);
		free(s->lines[i].source);
	}
	free(s->lines);
	free(s->note);
	memset(s, 0, sizeof *s);
}

void kpt_doc_release(kpt_docs *docs, kpt_doc **dp)
{
	kpt_doc *d = *dp;
	*dp = NULL;
	if (!d || --d->refs > 0)
		return;
	for (size_t i = 0; i < docs->n; i++)
		if (docs->v[i] == d) {
			docs->v[i] = docs->v[--docs->n];
			break;
		}
	free(d->load_error);
	for (size_t p = 0; d->r && p < d->r->nprocesses; p++) {
		if (!d->syms[p])
			continue;
		for (size_t t = 0; t < d->r->processes[p].nthreads; t++) {
			kpt_sym *fr = d->syms[p][t];
			if (!fr)
				continue;
			for (size_t f = 0; f <= d->r->processes[p].threads[t].nframes; f++)
				kpt_sym_clear(&fr[f]);
			free(fr);
		}
		free(d->syms[p]);
	}
	free(d->syms);
	for (size_t i = 0; d->dsyms && d->r && i < d->r->nimages; i++) {
		free(d->dsyms[i]);
		free(d->dsym_said[i]);
	}
	free(d->dsyms);
	free(d->dsym_said);
	kp_report_free(&d->r);
	free(d->path);
	free(d);
}

kpt_doc *kpt_doc_by_serial(const kpt_docs *docs, unsigned serial)
{
	for (size_t i = 0; i < docs->n; i++)
		if (docs->v[i]->serial == serial)
			return docs->v[i];
	return NULL;
}

kpt_sym *kpt_doc_syms(kpt_doc *d, size_t proc, size_t thread)
{
	if (!d->r || proc >= d->r->nprocesses || thread >= d->r->processes[proc].nthreads)
		return NULL;
	if (!d->syms[proc])
		d->syms[proc] = kpt_xcalloc(d->r->processes[proc].nthreads, sizeof *d->syms[proc]);
	kpt_sym **slot = &d->syms[proc][thread];
	if (!*slot)
		*slot = kpt_xcalloc(d->r->processes[proc].threads[thread].nframes + 1, sizeof **slot);
	return *slot;
}

void kpt_docs_free(kpt_docs *docs)
{
	free(docs->v);
	docs->v = NULL;
	docs->n = 0;
}
