/* event_json.h - events in records (SPEC §4 "event"): the details of each
 * kind as JSON, and an event record read back.  record_write.c and
 * record_read.c use these; nothing else turns an event into JSON. */
#ifndef BENCHTOP_EVENT_JSON_H
#define BENCHTOP_EVENT_JSON_H

#include "benchtop/event.h"

struct jw;
struct json;

/* e's details as the object member key of where w is (NULL in an array):
 * its kind's fields, {} for a kind this benchtop does not know. */
void event_json_write(struct jw *w, const char *key, const struct event *e);
/* An event record j read back into e (its kind's details into the
 * struct; t_def when it has no t): the inverse of record_event. */
void event_json_read(const struct json *j, double t_def, struct event *e);

#endif
