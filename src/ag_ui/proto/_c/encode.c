/* encode_flat: a flat event's model -> its ag_ui.Event bytes (plan.h). */
#include "fields.h"
#include "patch.h"
#include "plan.h"

/* The base_event field: type (absent for enum value 0), timestamp, raw_event, metadata. */
static int put_base(Buf *buf, const FlatPlan *plan, PyObject *values) {
    Py_ssize_t mark;
    if (buf_byte(buf, 0x0A) < 0 || buf_open(buf, &mark) < 0)
        return -1;
    if (plan->number && (buf_byte(buf, 0x08) < 0 || buf_varint(buf, plan->number) < 0))
        return -1;
    PyObject *value = PyDict_GetItemWithError(values, str_timestamp);
    if (value == NULL)
        return PyErr_Occurred() ? -1 : 1;
    if (value != Py_None) {
        if (!PyLong_CheckExact(value))
            return 1;
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (number == -1 && PyErr_Occurred())
            return -1;
        if (overflow || number < -MAX_SAFE_INTEGER || number > MAX_SAFE_INTEGER)
            return 1;
        if (buf_byte(buf, 0x10) < 0 || buf_varint(buf, (uint64_t)number) < 0)
            return -1;
    }
    value = PyDict_GetItemWithError(values, str_raw_event);
    if (value == NULL)
        return PyErr_Occurred() ? -1 : 1;
    int status;
    if (value != Py_None && (status = put_json_field(buf, 0x1A, value, 0)) != 0)
        return status;
    value = PyDict_GetItemWithError(values, str_metadata);
    if (value == NULL)
        return PyErr_Occurred() ? -1 : 1;
    if (value != Py_None && (status = put_json_field(buf, 0x22, value, 1)) != 0)
        return status;
    return buf_close(buf, mark);
}

static int put_event(Buf *buf, const FlatPlan *plan, PyObject *values) {
    Py_ssize_t mark;
    int status;
    if (buf_varint(buf, plan->arm_tag) < 0 || buf_open(buf, &mark) < 0)
        return -1;
    if ((status = put_base(buf, plan, values)) != 0)
        return status;
    for (int i = 0; i < plan->nfields; i++) {
        PyObject *value = PyDict_GetItemWithError(values, plan->names[i]);
        if (value == NULL)
            return PyErr_Occurred() ? -1 : 1;
        switch (plan->kinds[i]) {
        case KIND_STRING:
            status = put_string_field(buf, plan->tags[i], value, plan->implicit[i]);
            break;
        case KIND_VALUE: /* None is JSON null when the model requires the field */
            status = value == Py_None && !plan->required[i]
                         ? 0
                         : put_json_field(buf, plan->tags[i], value, 0);
            break;
        case KIND_STRUCT:
            status = value == Py_None ? 0 : put_json_field(buf, plan->tags[i], value, 1);
            break;
        case KIND_BOOL: /* explicit presence: False is written too */
            if (value == Py_None)
                status = 0;
            else if (value == Py_True || value == Py_False)
                status = buf_byte(buf, plan->tags[i]) < 0 ||
                                 buf_byte(buf, value == Py_True ? 1 : 0) < 0
                             ? -1
                             : 0;
            else
                status = 1;
            break;
        case KIND_PATCH:
            status = value == Py_None ? 0 : put_patch(buf, plan->tags[i], value);
            break;
        default: /* KIND_ABSENT: nothing to write, or the general path writes it */
            status = value == Py_None ||
                             ((PyList_Check(value) || PyTuple_Check(value)) &&
                              PyObject_Length(value) == 0)
                         ? 0
                         : 1;
        }
        if (status != 0)
            return status;
    }
    return buf_close(buf, mark);
}

/* encode_flat(event, framed=False) -> bytes | None */
PyObject *encode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "encode_flat(event, framed=False)");
        return NULL;
    }
    PyObject *event = args[0];
    int framed = nargs > 1 ? PyObject_IsTrue(args[1]) : 0;
    if (framed < 0)
        return NULL;
    PyObject *capsule = PyDict_GetItemWithError(plans_by_class, (PyObject *)Py_TYPE(event));
    if (capsule == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    FlatPlan *plan = PyCapsule_GetPointer(capsule, NULL);
    if (plan == NULL)
        return NULL;
    PyObject *values = PyObject_GenericGetDict(event, NULL);
    if (values == NULL)
        return NULL;
    PyObject *result = NULL;
    Buf buf;
    buf_init(&buf);
    /* A type changed after validation: the general path. */
    PyObject *type = PyDict_GetItemWithError(values, str_type);
    int status = type == plan->type_member ? 0 : (PyErr_Occurred() ? -1 : 1);
    if (status == 0 && framed)
        buf.len = 4; /* the length prefix, written last */
    if (status == 0)
        status = put_event(&buf, plan, values);
    if (status == 0 && framed) {
        Py_ssize_t size = buf.len - 4;
        if (size > 0xFFFFFFFFLL) {
            status = 1; /* the general path raises the EncodingError */
        } else {
            buf.data[0] = (char)(size >> 24);
            buf.data[1] = (char)(size >> 16);
            buf.data[2] = (char)(size >> 8);
            buf.data[3] = (char)size;
        }
    }
    if (status == 0)
        result = PyBytes_FromStringAndSize(buf.data, buf.len);
    else if (status == 1)
        result = Py_NewRef(Py_None);
    buf_free(&buf);
    Py_DECREF(values);
    return result;
}
