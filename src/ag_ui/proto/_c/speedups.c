/* The module ag_ui.proto._speedups: the compiled fast paths of ag_ui.proto.
 *
 *   encode.c, decode.c  whole events of the flat arms (strings, bools, open JSON as
 *                       google.protobuf.Value / Struct, JSON Patch operations, fields that must
 *                       be absent; plan.h), from a model's __dict__ / into a model's slots
 *   values.c            the Value / Struct codec, also exposed on its own (below)
 *   messages.c          MESSAGES_SNAPSHOT's messages of the plain shape, from their models
 *   patch.c, fields.c   JSON Patch operations; field writers and readers they share
 *   this file           the shared state, plan registration and the module
 *
 * Same contract as the pure-Python paths, which stay the reference: the plans (field names,
 * tags, defaults, the Literal checks) are built in _fast.py and registered here; this code only
 * moves bytes. Whatever is not the plain shape returns None and the caller takes the general
 * path through the generated code, which produces the precise errors. Tests compare both with
 * that general path, byte for byte and event for event.
 *
 * Why C: the SSE path serializes and validates inside pydantic-core (Rust); a Python loop over
 * wire bytes costs 1.5-1.8 us per event against SSE's 1.1-1.3 us, and a 2 KB state snapshot
 * 150 us against 11-20 us (benchmarks/bench_proto.py).
 */
#include "messages.h"
#include "patch.h"
#include "plan.h"
#include "values.h"

FlatPlan *plans_by_tag[MAX_ARM_TAG];
PyObject *plans_by_class;
PyObject *slot_dict, *slot_fields_set, *slot_extra, *slot_private;
PyObject *str_type, *str_timestamp, *str_raw_event, *str_metadata;
PyObject *empty_tuple;

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
    {"encode_messages", encode_messages, METH_O, "encode_messages(messages) -> bytes | None"},
    {"register_messages", (PyCFunction)(void (*)(void))register_messages, METH_FASTCALL,
     "register_messages(message_classes, tool_call_cls, function_cls)"},
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
    if (!plans_by_class || !empty_tuple || !str_type || !str_timestamp || !str_raw_event ||
        !str_metadata || patch_init() < 0)
        return NULL;
    return PyModule_Create(&module_def);
}
