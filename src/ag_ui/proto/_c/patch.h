/* repeated ag_ui.JsonPatchOperation <-> the plain operation dicts the models keep. */
#ifndef AG_UI_PATCH_H
#define AG_UI_PATCH_H

#include "wire.h"

/* Interns the operation names and keys; -1 on error. */
int patch_init(void);
/* Writes each operation as field `tag`; 1 when one is not the plain shape (an unknown op...). */
int put_patch(Buf *buf, uint8_t tag, PyObject *operations);
/* One operation's message body as the wire dict the general path builds; NULL with no error set
 * when it is not the plain shape. */
PyObject *read_patch_operation(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end);

#endif
