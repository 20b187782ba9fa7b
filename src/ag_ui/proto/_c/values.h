/* google.protobuf.Value / Struct <-> Python JSON values (PROTOCOL.md section 4.5). */
#ifndef AG_UI_VALUES_H
#define AG_UI_VALUES_H

#include "wire.h"

/* Nesting deeper than this is left to the Python paths (upb refuses to parse messages nested
 * deeper than 100, and one JSON level is up to three messages). */
#define VALUE_MAX_DEPTH 30

/* Writers return 0 when written, 1 when `obj` is not the plain shape handled here (the caller
 * takes the Python path, which converts or reports it), -1 with a Python error set. */
int put_value(Buf *buf, PyObject *obj, int depth);
int put_struct(Buf *buf, PyObject *dict, int depth);

/* Readers take the message body in data[pos:end]. They return a new reference, or NULL: with
 * a Python error set on failure, with none when the bytes are not the canonical shape handled
 * here (the caller takes the general path, which reads them or names what is wrong). */
PyObject *read_value(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end, int depth);
PyObject *read_struct(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end, int depth);

#endif
