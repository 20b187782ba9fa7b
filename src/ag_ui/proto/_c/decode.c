/* decode_flat: ag_ui.Event bytes -> a flat event's model (plan.h). */
#include "fields.h"
#include "patch.h"
#include "plan.h"

/* The base event; 0 sends the frame to the general path, -1 on error. */
static int read_base(const uint8_t *data, Py_ssize_t pos, Py_ssize_t stop, uint32_t number,
                     PyObject *values, PyObject *fields_set) {
    uint64_t event_type = 0;
    int seen_raw = 0, seen_metadata = 0;
    while (pos < stop) {
        uint8_t tag = data[pos++];
        uint64_t value;
        if (tag == 0x1A || tag == 0x22) { /* raw_event (Value), metadata (Struct) */
            int *seen = tag == 0x1A ? &seen_raw : &seen_metadata;
            Py_ssize_t body_stop;
            if (*seen || !read_length(data, &pos, stop, &body_stop))
                return 0; /* twice: upb would merge the two */
            *seen = 1;
            int status = read_json_field(data, pos, body_stop, tag == 0x22, values, fields_set,
                                         tag == 0x1A ? str_raw_event : str_metadata);
            if (status <= 0)
                return status;
            pos = body_stop;
            continue;
        }
        if (!read_varint(data, &pos, stop, &value))
            return 0;
        if (tag == 0x08) {
            event_type = value;
        } else if (tag == 0x10) {
            int64_t timestamp = (int64_t)value;
            if (timestamp < -MAX_SAFE_INTEGER || timestamp > MAX_SAFE_INTEGER)
                return 0;
            PyObject *boxed = PyLong_FromLongLong(timestamp);
            if (boxed == NULL || store(values, fields_set, str_timestamp, boxed) < 0)
                return -1;
        } else {
            return 0;
        }
    }
    return event_type == number;
}

static int set_slot(PyObject *descriptor, PyObject *instance, PyObject *value) {
    return Py_TYPE(descriptor)->tp_descr_set(descriptor, instance, value);
}

/* decode_flat(data, start=0, end=-1) -> event | None */
PyObject *decode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs < 1 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "decode_flat(data, start=0, end=-1)");
        return NULL;
    }
    PyObject *buffer = args[0];
    if (!PyBytes_Check(buffer))
        Py_RETURN_NONE;
    Py_ssize_t size = PyBytes_GET_SIZE(buffer);
    Py_ssize_t start = 0, end = -1;
    if (nargs > 1 && (start = PyLong_AsSsize_t(args[1])) == -1 && PyErr_Occurred())
        return NULL;
    if (nargs > 2 && (end = PyLong_AsSsize_t(args[2])) == -1 && PyErr_Occurred())
        return NULL;
    if (end < 0)
        end = size;
    if (start < 0 || start >= end || end > size)
        Py_RETURN_NONE;
    const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(buffer);

    Py_ssize_t pos = start;
    uint64_t tag, length;
    if (!read_varint(data, &pos, end, &tag) || tag >= MAX_ARM_TAG)
        Py_RETURN_NONE;
    FlatPlan *plan = plans_by_tag[tag];
    if (plan == NULL || !read_varint(data, &pos, end, &length))
        Py_RETURN_NONE;
    /* Other envelope fields, or base_event not first: the general path. */
    if ((uint64_t)(end - pos) != length || pos >= end || data[pos] != 0x0A)
        Py_RETURN_NONE;

    PyObject *values = PyDict_Copy(plan->defaults);
    if (values == NULL)
        return NULL;
    PyObject *fields_set = PySet_New(plan->always_set);
    PyObject *instance = NULL;
    if (fields_set == NULL)
        goto error;

    for (int i = 0; i < plan->nfields; i++) {
        if (plan->kinds[i] == KIND_PATCH) { /* always present, [] when no operation arrives */
            PyObject *operations = PyList_New(0);
            if (operations == NULL || store(values, fields_set, plan->names[i], operations) < 0)
                goto error;
        }
    }

    Py_ssize_t base_stop;
    pos++;
    if (!read_length(data, &pos, end, &base_stop))
        goto fallback;
    int status = read_base(data, pos, base_stop, plan->number, values, fields_set);
    if (status < 0)
        goto error;
    if (status == 0)
        goto fallback;
    pos = base_stop;

    unsigned arrived = 0;
    while (pos < end) {
        int index = plan->index_of_tag[data[pos++]];
        if (index < 0)
            goto fallback;
        uint8_t kind = plan->kinds[index];
        PyObject *name = plan->names[index];
        if (kind == KIND_BOOL) { /* a varint field */
            uint64_t flag;
            if (!read_varint(data, &pos, end, &flag))
                goto fallback;
            if (store(values, fields_set, name, Py_NewRef(flag ? Py_True : Py_False)) < 0)
                goto error;
            arrived |= 1u << index;
            continue;
        }
        Py_ssize_t stop;
        if (!read_length(data, &pos, end, &stop))
            goto fallback;
        if (kind == KIND_STRING) { /* a repeated string: the last one counts */
            PyObject *text = read_text(data, pos, stop);
            if (text == NULL)
                goto unreadable;
            if (store(values, fields_set, name, text) < 0)
                goto error;
        } else if (kind == KIND_PATCH) { /* one more operation */
            PyObject *operation = read_patch_operation(data, pos, stop);
            if (operation == NULL)
                goto unreadable;
            int failed = PyList_Append(PyDict_GetItem(values, name), operation);
            Py_DECREF(operation);
            if (failed < 0)
                goto error;
        } else {
            if (arrived & (1u << index))
                goto fallback; /* a repeated message field: upb would merge the two */
            status = read_json_field(data, pos, stop, kind == KIND_STRUCT, values, fields_set,
                                     name);
            if (status < 0)
                goto error;
            if (status == 0)
                goto fallback;
        }
        arrived |= 1u << index;
        pos = stop;
    }
    for (int i = 0; i < plan->nfields; i++) {
        if (plan->required[i] && !(arrived & (1u << i)))
            goto fallback; /* a required field missing: the general path names it */
    }

    if (plan->complete != Py_None) {
        /* Python defaults behind "" and the Literal checks live with the plans in _fast.py. */
        PyObject *complete_args[2] = {values, fields_set};
        PyObject *verdict = PyObject_Vectorcall(plan->complete, complete_args, 2, NULL);
        if (verdict == NULL)
            goto error;
        int ok = PyObject_IsTrue(verdict);
        Py_DECREF(verdict);
        if (ok < 0)
            goto error;
        if (!ok)
            goto fallback;
    }

    if (plan->validator != Py_None) {
        /* Nested operations: the model's own validator, as the general path would run it. */
        instance = PyObject_CallOneArg(plan->validator, values);
        if (instance == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_ValueError))
                goto error;
            PyErr_Clear(); /* invalid: the general path raises it with the readable problems */
            goto fallback;
        }
        Py_DECREF(values);
        Py_DECREF(fields_set);
        return instance;
    }

    /* object.__new__(cls), then pydantic's four slots, as model_construct leaves them. */
    instance = PyBaseObject_Type.tp_new((PyTypeObject *)plan->cls, empty_tuple, NULL);
    if (instance == NULL)
        goto error;
    PyObject *extra = PyDict_New();
    if (extra == NULL)
        goto error;
    int failed = set_slot(slot_dict, instance, values) < 0 ||
                 set_slot(slot_fields_set, instance, fields_set) < 0 ||
                 set_slot(slot_extra, instance, extra) < 0 ||
                 set_slot(slot_private, instance, Py_None) < 0;
    Py_DECREF(extra);
    if (failed)
        goto error;
    Py_DECREF(values);
    Py_DECREF(fields_set);
    return instance;

unreadable: /* a reader returned NULL: an error, or bytes left to the general path */
    if (PyErr_Occurred())
        goto error;
fallback:
    Py_DECREF(values);
    Py_XDECREF(fields_set);
    Py_RETURN_NONE;
error:
    Py_DECREF(values);
    Py_XDECREF(fields_set);
    Py_XDECREF(instance);
    return NULL;
}
