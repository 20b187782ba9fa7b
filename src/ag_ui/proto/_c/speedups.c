/* The compiled fast paths of ag_ui.proto: whole events for the flat arms (string fields and
 * open JSON, google.protobuf.Value / Struct) and the Value codec on its own.
 *
 * Same contract as the pure-Python paths, which stay the reference: the plans (field names,
 * tags, defaults, the Literal checks) are built in _fast.py and registered here; this file only
 * moves bytes. Whatever is not the plain shape returns None and the caller takes the general
 * path through the generated code, which produces the precise errors. Tests compare both with
 * that general path, byte for byte and event for event.
 *
 * Why C: the SSE path serializes and validates inside pydantic-core (Rust); a Python loop over
 * wire bytes costs 1.5-1.8 us per event against SSE's 1.1-1.3 us, and a 2 KB state snapshot
 * 150 us against 11-20 us (benchmarks/bench_proto.py).
 */
#include "values.h"
#include "wire.h"

#define MAX_FIELDS 8
#define MAX_SAFE_INTEGER 9007199254740991LL /* 2**53 - 1, the models' timestamp bound */

enum FieldKind {
    KIND_STRING = 0, /* string */
    KIND_VALUE = 1,  /* google.protobuf.Value */
    KIND_STRUCT = 2, /* google.protobuf.Struct */
    KIND_BOOL = 3,   /* optional bool (a varint field) */
    KIND_PATCH = 4,  /* repeated ag_ui.JsonPatchOperation */
    KIND_ABSENT = 5, /* a model field with nested messages: the fast path only when it is None
                      * or empty (its wire fields are not registered, so they send a frame to
                      * the general path) */
};

/* JsonPatchOperationType names, by enum number. */
#define PATCH_OP_COUNT 6
static const char *const patch_op_names[PATCH_OP_COUNT] = {"add",  "remove", "replace",
                                                           "move", "copy",   "test"};
static PyObject *patch_ops[PATCH_OP_COUNT]; /* interned */
static PyObject *str_op, *str_path, *str_from, *str_value;

typedef struct {
    PyObject *cls;         /* the event class (exact type on encode) */
    PyObject *type_member; /* its EventType member, the value of "type" */
    uint32_t arm_tag;      /* envelope tag of its oneof arm: field number << 3 | 2 */
    uint32_t number;       /* EventType number written in base_event.type */
    int nfields;
    PyObject *names[MAX_FIELDS];  /* interned field names, in field-number order */
    uint8_t tags[MAX_FIELDS];     /* one-byte tags (field numbers < 16) */
    uint8_t kinds[MAX_FIELDS];    /* enum FieldKind */
    uint8_t implicit[MAX_FIELDS]; /* strings with proto3 implicit presence: "" not written */
    uint8_t required[MAX_FIELDS]; /* fields the model requires that have wire presence */
    int8_t index_of_tag[256];     /* tag byte -> field index, or -1 */
    PyObject *defaults;   /* dict: every field's value before any arrive */
    PyObject *always_set; /* frozenset: names set even when nothing arrives */
    PyObject *complete;   /* callable(values, fields_set) -> bool, or None */
    PyObject *validator;  /* validate_python of the class, or None: build without validation */
} FlatPlan;

/* Arm tags are field number << 3 | 2 with arm numbers below 64: one index per tag value. */
#define MAX_ARM_TAG 512
static FlatPlan *plans_by_tag[MAX_ARM_TAG];
static PyObject *plans_by_class; /* dict: class -> capsule(FlatPlan*) */

static PyObject *slot_dict, *slot_fields_set, *slot_extra, *slot_private;
static PyObject *str_type, *str_timestamp, *str_raw_event, *str_metadata;
static PyObject *empty_tuple;

/* --- encode ------------------------------------------------------------------------------- */

/* Writes `tag`, then `obj` as a length-delimited Value or Struct body. 1: not handled here. */
static int put_json_field(Buf *buf, uint8_t tag, PyObject *obj, int as_struct) {
    Py_ssize_t mark;
    if (as_struct && !PyDict_Check(obj))
        return 1;
    if (buf_byte(buf, tag) < 0 || buf_open(buf, &mark) < 0)
        return -1;
    int status = as_struct ? put_struct(buf, obj, 0) : put_value(buf, obj, 0);
    return status != 0 ? status : buf_close(buf, mark);
}

/* Writes one string field unless it is None (or "" with implicit presence). */
static int put_string_field(Buf *buf, uint8_t tag, PyObject *value, int implicit) {
    if (value == Py_None)
        return 0;
    if (!PyUnicode_CheckExact(value))
        return 1;
    const char *data;
    Py_ssize_t size;
    PyObject *owner = NULL;
    if (PyUnicode_IS_COMPACT_ASCII(value)) {
        data = (const char *)PyUnicode_DATA(value);
        size = PyUnicode_GET_LENGTH(value);
    } else {
        /* A new bytes object rather than PyUnicode_AsUTF8AndSize, which would keep a UTF-8
         * copy on the str for the rest of its life. */
        owner = PyUnicode_AsUTF8String(value);
        if (owner == NULL) { /* a lone surrogate: the general path reports it */
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
                return -1;
            PyErr_Clear();
            return 1;
        }
        data = PyBytes_AS_STRING(owner);
        size = PyBytes_GET_SIZE(owner);
    }
    int status = 0;
    if (!(implicit && size == 0))
        status = (buf_byte(buf, tag) < 0 || buf_varint(buf, (uint64_t)size) < 0 ||
                  buf_put(buf, data, size) < 0)
                     ? -1
                     : 0;
    Py_XDECREF(owner);
    return status;
}

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

static int put_patch(Buf *buf, uint8_t tag, PyObject *operations) {
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
static PyObject *encode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
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

/* --- decode ------------------------------------------------------------------------------- */

/* Sets values[name] = item (stolen) and adds name to fields_set; -1 on error. */
static int store(PyObject *values, PyObject *fields_set, PyObject *name, PyObject *item) {
    int failed = PyDict_SetItem(values, name, item);
    Py_DECREF(item);
    return failed < 0 || PySet_Add(fields_set, name) < 0 ? -1 : 0;
}

/* A JSON field body in data[pos:stop]: stored, 0 when unreadable here, -1 on error. */
static int read_json_field(const uint8_t *data, Py_ssize_t pos, Py_ssize_t stop, int as_struct,
                           PyObject *values, PyObject *fields_set, PyObject *name) {
    PyObject *item = as_struct ? read_struct(data, pos, stop, 0) : read_value(data, pos, stop, 0);
    if (item == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return store(values, fields_set, name, item) < 0 ? -1 : 1;
}

/* One JsonPatchOperation message body as the wire dict the general path builds; NULL with no
 * error set when it is not the plain shape. */
static PyObject *read_patch_operation(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end) {
    uint64_t number = 0;
    PyObject *path = NULL, *from = NULL, *value = NULL, *operation = NULL;
    while (pos < end) {
        uint8_t tag = data[pos++];
        uint64_t size;
        if (!read_varint(data, &pos, end, &size))
            goto done;
        if (tag == 0x08) {
            number = size;
            continue;
        }
        if ((tag != 0x12 && tag != 0x1A && tag != 0x22) || size > (uint64_t)(end - pos))
            goto done;
        Py_ssize_t stop = pos + (Py_ssize_t)size;
        if (tag == 0x22) {
            if (value != NULL) /* twice: upb would merge the two */
                goto done;
            value = read_value(data, pos, stop, 0);
            if (value == NULL)
                goto done;
        } else {
            PyObject *text = PyUnicode_DecodeUTF8((const char *)data + pos, stop - pos, "strict");
            if (text == NULL) {
                if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
                    PyErr_Clear();
                goto done;
            }
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
            if (*seen || !read_varint(data, &pos, stop, &value) || value > (uint64_t)(stop - pos))
                return 0; /* twice: upb would merge the two */
            *seen = 1;
            body_stop = pos + (Py_ssize_t)value;
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
static PyObject *decode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
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

    uint64_t base_size;
    pos++;
    if (!read_varint(data, &pos, end, &base_size) || base_size > (uint64_t)(end - pos))
        goto fallback;
    int status = read_base(data, pos, pos + (Py_ssize_t)base_size, plan->number, values,
                           fields_set);
    if (status < 0)
        goto error;
    if (status == 0)
        goto fallback;
    pos += (Py_ssize_t)base_size;

    unsigned arrived = 0;
    while (pos < end) {
        int index = plan->index_of_tag[data[pos++]];
        uint64_t field_size;
        if (index < 0 || !read_varint(data, &pos, end, &field_size))
            goto fallback;
        uint8_t kind = plan->kinds[index];
        PyObject *name = plan->names[index];
        if (kind == KIND_BOOL) { /* a varint: field_size is the value */
            if (store(values, fields_set, name, Py_NewRef(field_size ? Py_True : Py_False)) < 0)
                goto error;
            arrived |= 1u << index;
            continue;
        }
        if (field_size > (uint64_t)(end - pos))
            goto fallback;
        Py_ssize_t stop = pos + (Py_ssize_t)field_size;
        if (kind == KIND_STRING) { /* a repeated string: the last one counts */
            PyObject *text = PyUnicode_DecodeUTF8((const char *)data + pos, stop - pos, "strict");
            if (text == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
                    goto error;
                PyErr_Clear();
                goto fallback;
            }
            if (store(values, fields_set, name, text) < 0)
                goto error;
        } else if (kind == KIND_PATCH) { /* one more operation */
            PyObject *operation = read_patch_operation(data, pos, stop);
            if (operation == NULL) {
                if (PyErr_Occurred())
                    goto error;
                goto fallback;
            }
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
            goto fallback; /* a required Value missing: the general path names it */
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

/* --- the Value codec on its own ----------------------------------------------------------- */

static PyObject *encode_json(PyObject *obj, int as_struct) {
    if (as_struct && !PyDict_Check(obj))
        Py_RETURN_NONE;
    Buf buf;
    buf_init(&buf);
    int status = as_struct ? put_struct(&buf, obj, 0) : put_value(&buf, obj, 0);
    PyObject *result = status == 0   ? PyBytes_FromStringAndSize(buf.data, buf.len)
                       : status == 1 ? Py_NewRef(Py_None)
                                     : NULL;
    buf_free(&buf);
    return result;
}

/* encode_value(obj) -> bytes | None: a serialized google.protobuf.Value */
static PyObject *encode_value(PyObject *module, PyObject *obj) {
    (void)module;
    return encode_json(obj, 0);
}

/* encode_struct(obj) -> bytes | None: a serialized google.protobuf.Struct */
static PyObject *encode_struct(PyObject *module, PyObject *obj) {
    (void)module;
    return encode_json(obj, 1);
}

static PyObject *decode_json(PyObject *const *args, Py_ssize_t nargs, int as_struct) {
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "decode_value/decode_struct(data: bytes, unreadable)");
        return NULL;
    }
    const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    PyObject *result = as_struct ? read_struct(data, 0, size, 0) : read_value(data, 0, size, 0);
    if (result == NULL && !PyErr_Occurred())
        result = Py_NewRef(args[1]);
    return result;
}

/* decode_value(data, unreadable) -> the JSON value, or `unreadable` */
static PyObject *decode_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    return decode_json(args, nargs, 0);
}

/* decode_struct(data, unreadable) -> the JSON object, or `unreadable` */
static PyObject *decode_struct(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    return decode_json(args, nargs, 1);
}

/* --- registration ------------------------------------------------------------------------- */

static void free_plan(PyObject *capsule) {
    FlatPlan *plan = PyCapsule_GetPointer(capsule, NULL);
    if (plan == NULL)
        return;
    Py_XDECREF(plan->cls);
    Py_XDECREF(plan->type_member);
    for (int i = 0; i < plan->nfields; i++)
        Py_XDECREF(plan->names[i]);
    Py_XDECREF(plan->defaults);
    Py_XDECREF(plan->always_set);
    Py_XDECREF(plan->complete);
    Py_XDECREF(plan->validator);
    PyMem_Free(plan);
}

/* configure(dict_slot, fields_set_slot, extra_slot, private_slot): pydantic's slot
 * descriptors (BaseModel.__dict__[...]), through which a decoded instance is filled. */
static PyObject *configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "configure(dict, fields_set, extra, private)");
        return NULL;
    }
    PyObject **slots[4] = {&slot_dict, &slot_fields_set, &slot_extra, &slot_private};
    for (int i = 0; i < 4; i++) {
        if (Py_TYPE(args[i])->tp_descr_set == NULL) {
            PyErr_SetString(PyExc_TypeError, "configure() takes data descriptors");
            return NULL;
        }
        Py_XSETREF(*slots[i], Py_NewRef(args[i]));
    }
    Py_RETURN_NONE;
}

/* register(cls, type_member, arm_tag, number, fields, defaults, always_set, complete,
 * validator) where fields is a tuple of (name, tag, kind, implicit, required), kind an
 * enum FieldKind. */
static PyObject *register_plan(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *cls, *type_member, *fields, *defaults, *always_set, *complete, *validator;
    unsigned int arm_tag, number;
    if (!PyArg_ParseTuple(args, "O!OIIO!O!O!OO:register", &PyType_Type, &cls, &type_member,
                          &arm_tag, &number, &PyTuple_Type, &fields, &PyDict_Type, &defaults,
                          &PyFrozenSet_Type, &always_set, &complete, &validator))
        return NULL;
    Py_ssize_t nfields = PyTuple_GET_SIZE(fields);
    if (arm_tag >= MAX_ARM_TAG || (arm_tag & 7) != 2 || nfields > MAX_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "register(): plan outside what the C path handles");
        return NULL;
    }
    if ((complete != Py_None && !PyCallable_Check(complete)) ||
        (validator != Py_None && !PyCallable_Check(validator))) {
        PyErr_SetString(PyExc_TypeError, "register(): complete and validator: callable or None");
        return NULL;
    }
    FlatPlan *plan = PyMem_Calloc(1, sizeof(FlatPlan));
    if (plan == NULL)
        return PyErr_NoMemory();
    memset(plan->index_of_tag, -1, sizeof(plan->index_of_tag));
    plan->arm_tag = arm_tag;
    plan->number = number;
    for (Py_ssize_t i = 0; i < nfields; i++) {
        PyObject *name;
        unsigned int tag, kind;
        int implicit, required;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fields, i), "UIIpp:field", &name, &tag, &kind,
                              &implicit, &required)) {
            goto error;
        }
        unsigned int wire_type = kind == KIND_BOOL ? 0 : 2;
        if (kind > KIND_ABSENT || tag > 0x7F || (kind != KIND_ABSENT && (tag & 7) != wire_type)) {
            PyErr_SetString(PyExc_ValueError, "register(): a field outside the C path's kinds");
            goto error;
        }
        plan->kinds[i] = (uint8_t)kind;
        /* A required Value, Struct or explicit-presence string must arrive (an absent implicit
         * string is "", a patch is [] when no operation does). */
        plan->required[i] =
            (uint8_t)(required && (kind == KIND_VALUE || kind == KIND_STRUCT ||
                                   (kind == KIND_STRING && !implicit)));
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        plan->names[i] = name;
        plan->tags[i] = (uint8_t)tag;
        plan->implicit[i] = (uint8_t)implicit;
        if (kind != KIND_ABSENT)
            plan->index_of_tag[tag] = (int8_t)i;
        plan->nfields = (int)i + 1;
    }
    plan->cls = Py_NewRef(cls);
    plan->type_member = Py_NewRef(type_member);
    plan->defaults = Py_NewRef(defaults);
    plan->always_set = Py_NewRef(always_set);
    plan->complete = Py_NewRef(complete);
    plan->validator = Py_NewRef(validator);

    PyObject *capsule = PyCapsule_New(plan, NULL, free_plan);
    if (capsule == NULL)
        goto error;
    if (PyDict_SetItem(plans_by_class, cls, capsule) < 0) {
        Py_DECREF(capsule); /* frees the plan */
        return NULL;
    }
    Py_DECREF(capsule); /* plans_by_class keeps it (and the plan) alive */
    plans_by_tag[arm_tag] = plan;
    Py_RETURN_NONE;

error:
    for (int i = 0; i < MAX_FIELDS; i++)
        Py_XDECREF(plan->names[i]);
    Py_XDECREF(plan->cls);
    Py_XDECREF(plan->type_member);
    Py_XDECREF(plan->defaults);
    Py_XDECREF(plan->always_set);
    Py_XDECREF(plan->complete);
    Py_XDECREF(plan->validator);
    PyMem_Free(plan);
    return NULL;
}

static PyMethodDef methods[] = {
    {"encode_flat", (PyCFunction)(void (*)(void))encode_flat, METH_FASTCALL,
     "encode_flat(event, framed=False) -> bytes | None"},
    {"decode_flat", (PyCFunction)(void (*)(void))decode_flat, METH_FASTCALL,
     "decode_flat(data, start=0, end=-1) -> event | None"},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(dict_slot, fields_set_slot, extra_slot, private_slot)"},
    {"encode_value", encode_value, METH_O, "encode_value(obj) -> bytes | None"},
    {"encode_struct", encode_struct, METH_O, "encode_struct(obj) -> bytes | None"},
    {"decode_value", (PyCFunction)(void (*)(void))decode_value, METH_FASTCALL,
     "decode_value(data, unreadable) -> object"},
    {"decode_struct", (PyCFunction)(void (*)(void))decode_struct, METH_FASTCALL,
     "decode_struct(data, unreadable) -> dict | unreadable"},
    {"register", register_plan, METH_VARARGS,
     "register(cls, type_member, arm_tag, number, fields, defaults, always_set, complete)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "ag_ui.proto._speedups",
    "Compiled fast paths of ag_ui.proto (see ag_ui/proto/_fast.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    plans_by_class = PyDict_New();
    empty_tuple = PyTuple_New(0);
    str_type = PyUnicode_InternFromString("type");
    str_timestamp = PyUnicode_InternFromString("timestamp");
    str_raw_event = PyUnicode_InternFromString("raw_event");
    str_metadata = PyUnicode_InternFromString("metadata");
    str_op = PyUnicode_InternFromString("op");
    str_path = PyUnicode_InternFromString("path");
    str_from = PyUnicode_InternFromString("from");
    str_value = PyUnicode_InternFromString("value");
    if (!plans_by_class || !empty_tuple || !str_type || !str_timestamp || !str_raw_event ||
        !str_metadata || !str_op || !str_path || !str_from || !str_value)
        return NULL;
    for (int i = 0; i < PATCH_OP_COUNT; i++) {
        if ((patch_ops[i] = PyUnicode_InternFromString(patch_op_names[i])) == NULL)
            return NULL;
    }
    return PyModule_Create(&module_def);
}
