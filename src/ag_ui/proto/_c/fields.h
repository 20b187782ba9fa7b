/* Field writers and readers shared by the event and patch-operation codecs. Writers return 0
 * when written, 1 when the value is not the plain shape handled here, -1 with a Python error. */
#ifndef AG_UI_FIELDS_H
#define AG_UI_FIELDS_H

#include "wire.h"

int put_json_field(Buf *buf, uint8_t tag, PyObject *obj, int as_struct);
int put_string_field(Buf *buf, uint8_t tag, PyObject *value, int implicit);

/* Sets values[name] = item (stolen) and adds name to fields_set; -1 on error. */
int store(PyObject *values, PyObject *fields_set, PyObject *name, PyObject *item);
/* A JSON field body in data[pos:stop]: stored (1), 0 when unreadable here, -1 on error. */
int read_json_field(const uint8_t *data, Py_ssize_t pos, Py_ssize_t stop, int as_struct,
                    PyObject *values, PyObject *fields_set, PyObject *name);

#endif
