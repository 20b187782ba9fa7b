/* The flat-event fast paths of ag_ui.proto._fast, compiled.
 *
 * Same contract as the pure-Python functions in _fast.py, which stay the reference: the plans
 * (field names, tags, defaults, the Literal checks) are built in Python and registered here;
 * this file only moves bytes. Whatever is not the plain shape returns None and the caller takes
 * the general path, which produces the precise errors. Tests run both implementations against
 * the general path through the generated code.
 *
 * Why C: the SSE path serializes and validates inside pydantic-core (Rust); a Python loop over
 * wire bytes costs 1.5-1.8 us per event against SSE's 1.1-1.3 us (benchmarks/bench_proto.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_FIELDS 8
#define MAX_SAFE_INTEGER 9007199254740991LL /* 2**53 - 1, the models' timestamp bound */

typedef struct {
    PyObject *cls;         /* the event class (exact type on encode) */
    PyObject *type_member; /* its EventType member, the value of "type" */
    uint32_t arm_tag;      /* envelope tag of its oneof arm: field number << 3 | 2 */
    uint32_t number;       /* EventType number written in base_event.type */
    int nfields;
    PyObject *names[MAX_FIELDS]; /* interned field names, in field-number order */
    uint8_t tags[MAX_FIELDS];    /* one-byte tags (field numbers < 16, length-delimited) */
    uint8_t implicit[MAX_FIELDS]; /* proto3 implicit presence: "" is not written */
    int8_t index_of_tag[256];    /* tag byte -> field index, or -1 */
    PyObject *defaults;    /* dict: every field's value before any arrive */
    PyObject *always_set;  /* frozenset: names set even when nothing arrives */
    PyObject *complete;    /* callable(values, fields_set) -> bool, or None */
} FlatPlan;

/* Arm tags are field number << 3 | 2 with arm numbers below 64: one index per tag value. */
#define MAX_ARM_TAG 512
static FlatPlan *plans_by_tag[MAX_ARM_TAG];
static PyObject *plans_by_class; /* dict: class -> capsule(FlatPlan*) */

static PyObject *slot_dict, *slot_fields_set, *slot_extra, *slot_private;
static PyObject *str_type, *str_timestamp, *str_raw_event, *str_metadata;
static PyObject *empty_tuple;

/* --- varints ------------------------------------------------------------------------------ */

static inline int varint_size(uint64_t value) {
    int size = 1;
    while (value > 0x7F) {
        value >>= 7;
        size++;
    }
    return size;
}

static inline char *write_varint(char *out, uint64_t value) {
    while (value > 0x7F) {
        *out++ = (char)((value & 0x7F) | 0x80);
        value >>= 7;
    }
    *out++ = (char)value;
    return out;
}

/* Reads a varint from [*pos, end); 0 when it runs past end or over 10 bytes. */
static inline int read_varint(const uint8_t *data, Py_ssize_t *pos, Py_ssize_t end,
                              uint64_t *value) {
    uint64_t result = 0;
    int shift = 0;
    Py_ssize_t at = *pos;
    while (at < end) {
        uint8_t byte = data[at++];
        result |= (uint64_t)(byte & 0x7F) << shift;
        if (byte < 0x80) {
            *pos = at;
            *value = result;
            return 1;
        }
        shift += 7;
        if (shift > 63)
            return 0;
    }
    return 0;
}

/* --- encode ------------------------------------------------------------------------------- */

typedef struct {
    const char *data;
    Py_ssize_t size;
    PyObject *owner; /* a UTF-8 bytes object to release, or NULL for ASCII str data */
} Utf8;

/* encode_flat(event, framed=False) -> bytes | None */
static PyObject *encode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
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
    if (values == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *result = NULL;
    Utf8 strings[MAX_FIELDS];
    int nstrings = 0;

    /* Open JSON (raw_event, metadata) or a mutated type: the general path. */
    PyObject *value = PyDict_GetItemWithError(values, str_type);
    if (value != plan->type_member)
        goto fallback;
    value = PyDict_GetItemWithError(values, str_raw_event);
    if (value == NULL || value != Py_None)
        goto fallback;
    value = PyDict_GetItemWithError(values, str_metadata);
    if (value == NULL || value != Py_None)
        goto fallback;

    /* base_event: type (absent for enum value 0), then the timestamp. */
    Py_ssize_t base_size = plan->number ? 1 + varint_size(plan->number) : 0;
    uint64_t timestamp = 0;
    int has_timestamp = 0;
    value = PyDict_GetItemWithError(values, str_timestamp);
    if (value == NULL)
        goto fallback;
    if (value != Py_None) {
        if (!PyLong_CheckExact(value))
            goto fallback;
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || number < -MAX_SAFE_INTEGER || number > MAX_SAFE_INTEGER)
            goto fallback;
        timestamp = (uint64_t)number;
        has_timestamp = 1;
        base_size += 1 + varint_size(timestamp);
    }
    Py_ssize_t inner_size = 1 + varint_size((uint64_t)base_size) + base_size;

    int present[MAX_FIELDS];
    for (int i = 0; i < plan->nfields; i++) {
        present[i] = 0;
        value = PyDict_GetItemWithError(values, plan->names[i]);
        if (value == NULL || (value != Py_None && !PyUnicode_CheckExact(value)))
            goto fallback;
        if (value == Py_None)
            continue;
        Utf8 *text = &strings[nstrings];
        if (PyUnicode_IS_COMPACT_ASCII(value)) {
            text->data = (const char *)PyUnicode_DATA(value);
            text->size = PyUnicode_GET_LENGTH(value);
            text->owner = NULL;
        } else {
            /* A new bytes object rather than PyUnicode_AsUTF8AndSize: that one caches the
             * UTF-8 copy on the str for the rest of its life. */
            PyObject *encoded = PyUnicode_AsUTF8String(value);
            if (encoded == NULL) { /* a lone surrogate: the general path reports it */
                PyErr_Clear();
                goto fallback;
            }
            text->data = PyBytes_AS_STRING(encoded);
            text->size = PyBytes_GET_SIZE(encoded);
            text->owner = encoded;
        }
        nstrings++;
        if (plan->implicit[i] && text->size == 0)
            continue;
        present[i] = nstrings; /* 1-based index into strings */
        inner_size += 1 + varint_size((uint64_t)text->size) + text->size;
    }

    Py_ssize_t message_size =
        varint_size(plan->arm_tag) + varint_size((uint64_t)inner_size) + inner_size;
    if (framed && message_size > 0xFFFFFFFFLL)
        goto fallback; /* the Python path raises the EncodingError */
    Py_ssize_t total = message_size + (framed ? 4 : 0);
    result = PyBytes_FromStringAndSize(NULL, total);
    if (result == NULL)
        goto done;
    char *out = PyBytes_AS_STRING(result);
    if (framed) {
        uint32_t size = (uint32_t)message_size;
        out[0] = (char)(size >> 24);
        out[1] = (char)(size >> 16);
        out[2] = (char)(size >> 8);
        out[3] = (char)size;
        out += 4;
    }
    out = write_varint(out, plan->arm_tag);
    out = write_varint(out, (uint64_t)inner_size);
    *out++ = 0x0A;
    out = write_varint(out, (uint64_t)base_size);
    if (plan->number) {
        *out++ = 0x08;
        out = write_varint(out, plan->number);
    }
    if (has_timestamp) {
        *out++ = 0x10;
        out = write_varint(out, timestamp);
    }
    for (int i = 0; i < plan->nfields; i++) {
        if (!present[i])
            continue;
        Utf8 *text = &strings[present[i] - 1];
        *out++ = (char)plan->tags[i];
        out = write_varint(out, (uint64_t)text->size);
        memcpy(out, text->data, (size_t)text->size);
        out += text->size;
    }
    goto done;

fallback:
    if (PyErr_Occurred()) { /* only a failed dict lookup; fall back rather than raise */
        PyErr_Clear();
    }
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < nstrings; i++)
        Py_XDECREF(strings[i].owner);
    Py_DECREF(values);
    return result;
}

/* --- decode ------------------------------------------------------------------------------- */

/* A base event in an unusual shape or with a timestamp; 0 sends the frame to the general path. */
static int read_base(const uint8_t *data, Py_ssize_t pos, Py_ssize_t stop, uint32_t number,
                     PyObject *values, int *has_timestamp) {
    uint64_t event_type = 0;
    while (pos < stop) {
        uint8_t tag = data[pos++];
        uint64_t value;
        if (!read_varint(data, &pos, stop, &value))
            return 0;
        if (tag == 0x08) {
            event_type = value;
        } else if (tag == 0x10) {
            int64_t timestamp = (int64_t)value;
            if (timestamp < -MAX_SAFE_INTEGER || timestamp > MAX_SAFE_INTEGER)
                return 0;
            PyObject *boxed = PyLong_FromLongLong(timestamp);
            if (boxed == NULL || PyDict_SetItem(values, str_timestamp, boxed) < 0) {
                Py_XDECREF(boxed);
                return -1;
            }
            Py_DECREF(boxed);
            *has_timestamp = 1;
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

    /* base_event: its own length, then the type and the timestamp. */
    uint64_t base_size;
    pos++;
    if (!read_varint(data, &pos, end, &base_size) || base_size > (uint64_t)(end - pos))
        goto fallback;
    int has_timestamp = 0;
    int base_ok = read_base(data, pos, pos + (Py_ssize_t)base_size, plan->number, values,
                            &has_timestamp);
    if (base_ok < 0)
        goto error;
    if (!base_ok)
        goto fallback;
    if (has_timestamp && PySet_Add(fields_set, str_timestamp) < 0)
        goto error;
    pos += (Py_ssize_t)base_size;

    while (pos < end) {
        int index = plan->index_of_tag[data[pos++]];
        uint64_t field_size;
        if (index < 0 || !read_varint(data, &pos, end, &field_size) ||
            field_size > (uint64_t)(end - pos))
            goto fallback;
        PyObject *text =
            PyUnicode_DecodeUTF8((const char *)data + pos, (Py_ssize_t)field_size, "strict");
        if (text == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
                goto error;
            PyErr_Clear();
            goto fallback;
        }
        int failed = PyDict_SetItem(values, plan->names[index], text);
        Py_DECREF(text);
        if (failed < 0 || PySet_Add(fields_set, plan->names[index]) < 0)
            goto error;
        pos += (Py_ssize_t)field_size;
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
    PyMem_Free(plan);
}

/* configure(dict_slot, fields_set_slot, extra_slot, private_slot): pydantic's slot
 * descriptors (BaseModel.__dict__[...]), through which a decoded instance is filled. */
static PyObject *configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
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

/* register(cls, type_member, arm_tag, number, fields, defaults, always_set, complete) where
 * fields is a tuple of (name, tag, implicit). */
static PyObject *register_plan(PyObject *module, PyObject *args) {
    PyObject *cls, *type_member, *fields, *defaults, *always_set, *complete;
    unsigned int arm_tag, number;
    if (!PyArg_ParseTuple(args, "O!OIIO!O!O!O:register", &PyType_Type, &cls, &type_member,
                          &arm_tag, &number, &PyTuple_Type, &fields, &PyDict_Type, &defaults,
                          &PyFrozenSet_Type, &always_set, &complete))
        return NULL;
    Py_ssize_t nfields = PyTuple_GET_SIZE(fields);
    if (arm_tag >= MAX_ARM_TAG || (arm_tag & 7) != 2 || nfields > MAX_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "register(): plan outside what the C path handles");
        return NULL;
    }
    if (complete != Py_None && !PyCallable_Check(complete)) {
        PyErr_SetString(PyExc_TypeError, "register(): complete must be callable or None");
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
        unsigned int tag;
        int implicit;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fields, i), "UIp:field", &name, &tag,
                              &implicit)) {
            goto error;
        }
        if (tag > 0x7F || (tag & 7) != 2) {
            PyErr_SetString(PyExc_ValueError, "register(): field tags must be one byte");
            goto error;
        }
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        plan->names[i] = name;
        plan->tags[i] = (uint8_t)tag;
        plan->implicit[i] = (uint8_t)implicit;
        plan->index_of_tag[tag] = (int8_t)i;
        plan->nfields = (int)i + 1;
    }
    plan->cls = Py_NewRef(cls);
    plan->type_member = Py_NewRef(type_member);
    plan->defaults = Py_NewRef(defaults);
    plan->always_set = Py_NewRef(always_set);
    plan->complete = Py_NewRef(complete);

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
    {"register", register_plan, METH_VARARGS,
     "register(cls, type_member, arm_tag, number, fields, defaults, always_set, complete)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "ag_ui.proto._speedups",
    "Compiled flat-event fast paths of ag_ui.proto._fast.", -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    plans_by_class = PyDict_New();
    empty_tuple = PyTuple_New(0);
    str_type = PyUnicode_InternFromString("type");
    str_timestamp = PyUnicode_InternFromString("timestamp");
    str_raw_event = PyUnicode_InternFromString("raw_event");
    str_metadata = PyUnicode_InternFromString("metadata");
    if (!plans_by_class || !empty_tuple || !str_type || !str_timestamp || !str_raw_event ||
        !str_metadata)
        return NULL;
    return PyModule_Create(&module_def);
}
