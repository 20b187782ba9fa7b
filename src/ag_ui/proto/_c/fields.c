/* Field writers and readers shared by the event and patch-operation codecs (fields.h). */
#include "fields.h"

#include "values.h"

/* Writes `tag`, then `obj` as a length-delimited Value or Struct body. 1: not handled here. */
int put_json_field(Buf *buf, uint8_t tag, PyObject *obj, int as_struct) {
    Py_ssize_t mark;
    if (as_struct && !PyDict_Check(obj))
        return 1;
    if (buf_byte(buf, tag) < 0 || buf_open(buf, &mark) < 0)
        return -1;
    int status = as_struct ? put_struct(buf, obj, 0) : put_value(buf, obj, 0);
    return status != 0 ? status : buf_close(buf, mark);
}

/* Writes one string field unless it is None (or "" with implicit presence). */
int put_string_field(Buf *buf, uint8_t tag, PyObject *value, int implicit) {
    if (value == Py_None)
        return 0;
    if (!PyUnicode_CheckExact(value))
        return 1;
    const char *data;
    Py_ssize_t size;
    PyObject *owner;
    int status = utf8_of(value, &data, &size, &owner);
    if (status == 0 && !(implicit && size == 0) &&
        (buf_byte(buf, tag) < 0 || buf_varint(buf, (uint64_t)size) < 0 ||
         buf_put(buf, data, size) < 0))
        status = -1;
    Py_XDECREF(owner);
    return status;
}

int store(PyObject *values, PyObject *fields_set, PyObject *name, PyObject *item) {
    int failed = PyDict_SetItem(values, name, item);
    Py_DECREF(item);
    return failed < 0 || PySet_Add(fields_set, name) < 0 ? -1 : 0;
}

int read_json_field(const uint8_t *data, Py_ssize_t pos, Py_ssize_t stop, int as_struct,
                    PyObject *values, PyObject *fields_set, PyObject *name) {
    PyObject *item = as_struct ? read_struct(data, pos, stop, 0) : read_value(data, pos, stop, 0);
    if (item == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return store(values, fields_set, name, item) < 0 ? -1 : 1;
}
