/* repeated ag_ui.JsonPatchOperation <-> the plain operation dicts the models keep (patch.h);
 * the reference is fill_patch / patch_from_proto in ag_ui/proto/_records.py. */
#include "patch.h"

#include "fields.h"
#include "values.h"

/* JsonPatchOperationType names, by enum number. */
#define PATCH_OP_COUNT 6
static const char *const patch_op_names[PATCH_OP_COUNT] = {"add",  "remove", "replace",
                                                           "move", "copy",   "test"};
static PyObject *patch_ops[PATCH_OP_COUNT]; /* interned */
static PyObject *str_op, *str_path, *str_from, *str_value;

int patch_init(void) {
    str_op = PyUnicode_InternFromString("op");
    str_path = PyUnicode_InternFromString("path");
    str_from = PyUnicode_InternFromString("from");
    str_value = PyUnicode_InternFromString("value");
    if (!str_op || !str_path || !str_from || !str_value)
        return -1;
    for (int i = 0; i < PATCH_OP_COUNT; i++) {
        if ((patch_ops[i] = PyUnicode_InternFromString(patch_op_names[i])) == NULL)
            return -1;
    }
    return 0;
}

/* Writes one string field of a patch operation; `text` must be a str. 1: not handled here. */
static int put_text(Buf *buf, uint8_t tag, PyObject *text, int implicit) {
    if (!PyUnicode_Check(text))
        return 1;
    return put_string_field(buf, tag, text, implicit);
}

/* One JSON Patch operation (a plain dict, as the models keep them) as its message body. */
static int put_patch_operation(Buf *buf, PyObject *operation) {
    if (!PyDict_Check(operation))
        return 1;
    PyObject *op = PyDict_GetItemWithError(operation, str_op);
    if (op == NULL)
        return PyErr_Occurred() ? -1 : 1;
    int number = -1;
    for (int i = 0; i < PATCH_OP_COUNT; i++) {
        if (op == patch_ops[i] ||
            (PyUnicode_Check(op) && PyUnicode_CompareWithASCIIString(op, patch_op_names[i]) == 0)) {
            number = i;
            break;
        }
    }
    if (number < 0)
        return 1; /* the general path names the bad op */
    if (number && (buf_byte(buf, 0x08) < 0 || buf_varint(buf, (uint64_t)number) < 0))
        return -1;
    int status;
    PyObject *path = PyDict_GetItemWithError(operation, str_path);
    if (path == NULL && PyErr_Occurred())
        return -1;
    if (path != NULL && (status = put_text(buf, 0x12, path, 1)) != 0)
        return status;
    PyObject *from = PyDict_GetItemWithError(operation, str_from);
    if (from == NULL && PyErr_Occurred())
        return -1;
    if (from != NULL && from != Py_None && (status = put_text(buf, 0x1A, from, 0)) != 0)
        return status;
    PyObject *value = PyDict_GetItemWithError(operation, str_value);
    if (value == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return put_json_field(buf, 0x22, value, 0);
}

int put_patch(Buf *buf, uint8_t tag, PyObject *operations) {
    if (!PyList_Check(operations))
        return 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(operations); i++) {
        PyObject *operation = PyList_GET_ITEM(operations, i);
        Py_ssize_t mark;
        Py_INCREF(operation);
        int status = buf_byte(buf, tag) < 0 || buf_open(buf, &mark) < 0 ? -1 : 0;
        if (status == 0)
            status = put_patch_operation(buf, operation);
        if (status == 0)
            status = buf_close(buf, mark);
        Py_DECREF(operation);
        if (status != 0)
            return status;
    }
    return 0;
}

PyObject *read_patch_operation(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end) {
    uint64_t number = 0;
    PyObject *path = NULL, *from = NULL, *value = NULL, *operation = NULL;
    while (pos < end) {
        uint8_t tag = data[pos++];
        if (tag == 0x08) {
            if (!read_varint(data, &pos, end, &number))
                goto done;
            continue;
        }
        Py_ssize_t stop;
        if ((tag != 0x12 && tag != 0x1A && tag != 0x22) || !read_length(data, &pos, end, &stop))
            goto done;
        if (tag == 0x22) {
            if (value != NULL) /* twice: upb would merge the two */
                goto done;
            value = read_value(data, pos, stop, 0);
            if (value == NULL)
                goto done;
        } else {
            PyObject *text = read_text(data, pos, stop);
            if (text == NULL)
                goto done;
            Py_XSETREF(*(tag == 0x12 ? &path : &from), text); /* the last one counts */
        }
        pos = stop;
    }
    if (number >= PATCH_OP_COUNT)
        goto done; /* the general path keeps the number for the validator to refuse */
    operation = PyDict_New();
    if (operation == NULL)
        goto done;
    if (path == NULL && (path = PyUnicode_FromStringAndSize(NULL, 0)) == NULL)
        goto fail;
    if (PyDict_SetItem(operation, str_op, patch_ops[number]) < 0 ||
        PyDict_SetItem(operation, str_path, path) < 0 ||
        (from != NULL && PyDict_SetItem(operation, str_from, from) < 0) ||
        (value != NULL && PyDict_SetItem(operation, str_value, value) < 0))
        goto fail;
    goto done;
fail:
    Py_CLEAR(operation);
done:
    Py_XDECREF(path);
    Py_XDECREF(from);
    Py_XDECREF(value);
    return operation;
}
