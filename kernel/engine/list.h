/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A minimal intrusive doubly linked list for the engine (the kernel's
 * list.h is not available to the freestanding build). An empty list and a
 * node that is on no list both point to themselves.
 */
#ifndef MRE_LIST_H
#define MRE_LIST_H

struct mre_list {
	struct mre_list *next, *prev;
};

static inline void mre_list_init(struct mre_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool mre_list_empty(const struct mre_list *l)
{
	return l->next == l;
}

/* insert @n before @head, i.e. at the tail of the list @head */
static inline void mre_list_add_tail(struct mre_list *n, struct mre_list *head)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void mre_list_del(struct mre_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	mre_list_init(n);
}

#endif /* MRE_LIST_H */
