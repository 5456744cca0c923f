/* restore.h - undoing what a killed benchtop left (restore.c). */
#ifndef BENCHTOP_RESTORE_H
#define BENCHTOP_RESTORE_H

#include <stdio.h>

/* `benchtop --restore`: undo what benchtops that are gone left, as the
 * journals in this user's journal directory name it (with sysfs_root, only
 * journals with policies under that tree).  One line per thing done or
 * refused on rep.  Returns the exit status: 0 when everything was undone
 * (or nothing was left), 3 when a journal was refused or something could
 * not be undone. */
int app_restore(const char *sysfs_root, FILE *rep);

#endif
