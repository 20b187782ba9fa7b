/* encode_messages: the messages of a MESSAGES_SNAPSHOT (ag_ui.Message, types.proto) written
 * from their models' __dict__, as the general path writes them from their wire dicts
 * (_messages.fill_message), in field-number order as upb does.
 *
 * Only the plain shape: a registered message class exactly (not the activity message, whose
 * content is a Struct), string content, no extras, no field this table does not know; tool
 * calls of the registered ToolCall / FunctionCall classes exactly. Anything else (content
 * parts, a lone surrogate, a subclass, JSON the Struct writer does not take) returns None and
 * the whole event takes the general path. Why: through the generated classes a 30-message
 * snapshot costs 2.2x SSE's instructions (benchmarks/README.md, Protobuf). */
#include "messages.h"

#include "fields.h"
#include "plan.h"

enum MessageKind {
    M_IMPLICIT, /* string, proto3 implicit presence: "" is not written */
    M_OPTIONAL, /* optional string: written when not None, "" too */
    M_CONTENT,  /* optional string content; a list (content parts) is not handled here */
    M_CALLS,    /* repeated ToolCall */
    M_FUNCTION, /* ToolCall.function: always written (the general path sets it present) */
    M_STRUCT,   /* google.protobuf.Struct, written when a dict */
};

typedef struct {
    const char *name;
    uint8_t tag;
    uint8_t kind;
    PyObject *key; /* interned name (register_messages) */
} MessageField;

static MessageField message_fields[] = {
    {"id", 0x0A, M_IMPLICIT, NULL},
    {"role", 0x12, M_IMPLICIT, NULL},
    {"content", 0x1A, M_CONTENT, NULL},
    {"name", 0x22, M_OPTIONAL, NULL},
    {"tool_calls", 0x2A, M_CALLS, NULL},
    {"tool_call_id", 0x32, M_OPTIONAL, NULL},
    {"error", 0x3A, M_OPTIONAL, NULL},
    {"metadata", 0x4A, M_STRUCT, NULL},
    {"subagent_run_id", 0x52, M_OPTIONAL, NULL},
    {"encrypted_value", 0x5A, M_OPTIONAL, NULL},
    {"encrypted_value_type", 0x72, M_OPTIONAL, NULL},
};

static MessageField call_fields[] = {
    {"id", 0x0A, M_IMPLICIT, NULL},
    {"type", 0x12, M_IMPLICIT, NULL},
    {"function", 0x1A, M_FUNCTION, NULL},
    {"metadata", 0x22, M_STRUCT, NULL},
    {"encrypted_value", 0x2A, M_OPTIONAL, NULL},
    {"encrypted_value_type", 0x32, M_OPTIONAL, NULL},
};

static MessageField function_fields[] = {
    {"name", 0x0A, M_IMPLICIT, NULL},
    {"arguments", 0x12, M_IMPLICIT, NULL},
};

#define COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

static PyObject *message_classes; /* frozenset of the message classes taken here */
static PyObject *tool_call_cls, *function_cls;

static int put_model(Buf *buf, uint8_t tag, PyObject *model, MessageField *fields, int nfields);

/* The __dict__ of a model with no extras, or NULL: status 1 (not handled) or -1 (error). */
static PyObject *plain_dict(PyObject *model, int *status) {
    PyObject *extra = Py_TYPE(slot_extra)->tp_descr_get(slot_extra, model, NULL);
    if (extra == NULL) { /* the slot never set (a model built by hand): the general path */
        *status = PyErr_ExceptionMatches(PyExc_AttributeError) ? 1 : -1;
        if (*status == 1)
            PyErr_Clear();
        return NULL;
    }
    int has_extra = extra != Py_None && (!PyDict_Check(extra) || PyDict_GET_SIZE(extra) > 0);
    Py_DECREF(extra);
    if (has_extra) {
        *status = 1;
        return NULL;
    }
    PyObject *values = PyObject_GenericGetDict(model, NULL);
    if (values == NULL)
        *status = -1;
    return values;
}

static int put_calls(Buf *buf, uint8_t tag, PyObject *calls) {
    if (!PyList_CheckExact(calls))
        return 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(calls); i++) {
        PyObject *call = PyList_GET_ITEM(calls, i);
        if ((PyObject *)Py_TYPE(call) != tool_call_cls)
            return 1;
        int status = put_model(buf, tag, call, call_fields, COUNT(call_fields));
        if (status != 0)
            return status;
    }
    return 0;
}

static int put_field(Buf *buf, const MessageField *field, PyObject *value) {
    switch (field->kind) {
    case M_IMPLICIT:
        return value == Py_None ? 1 : put_string_field(buf, field->tag, value, 1);
    case M_OPTIONAL:
        return put_string_field(buf, field->tag, value, 0);
    case M_CONTENT:
        return value != Py_None && !PyUnicode_CheckExact(value)
                   ? 1
                   : put_string_field(buf, field->tag, value, 0);
    case M_CALLS:
        return value == Py_None ? 0 : put_calls(buf, field->tag, value);
    case M_FUNCTION:
        return (PyObject *)Py_TYPE(value) != function_cls
                   ? 1
                   : put_model(buf, field->tag, value, function_fields, COUNT(function_fields));
    default: /* M_STRUCT */
        return value == Py_None ? 0 : put_json_field(buf, field->tag, value, 1);
    }
}

/* `tag`, then the model's fields as one length-delimited message. */
static int put_model(Buf *buf, uint8_t tag, PyObject *model, MessageField *fields, int nfields) {
    int status = 0;
    PyObject *values = plain_dict(model, &status);
    if (values == NULL)
        return status;
    Py_ssize_t mark, found = 0;
    if (buf_byte(buf, tag) < 0 || buf_open(buf, &mark) < 0)
        status = -1;
    for (int i = 0; status == 0 && i < nfields; i++) {
        PyObject *value = PyDict_GetItemWithError(values, fields[i].key);
        if (value == NULL) {
            status = PyErr_Occurred() ? -1 : 0;
            continue;
        }
        found++;
        status = put_field(buf, &fields[i], value);
    }
    /* A field the table does not know (the activity message's, a newer model's): not here. */
    if (status == 0 && found != PyDict_GET_SIZE(values))
        status = 1;
    Py_DECREF(values);
    return status != 0 ? status : buf_close(buf, mark);
}

PyObject *encode_messages(PyObject *module, PyObject *messages) {
    (void)module;
    if (message_classes == NULL || slot_extra == NULL || !PyList_CheckExact(messages))
        Py_RETURN_NONE;
    Buf buf;
    buf_init(&buf);
    int status = 0;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(messages); i++) {
        PyObject *message = PyList_GET_ITEM(messages, i);
        int known = PySet_Contains(message_classes, (PyObject *)Py_TYPE(message));
        status = known < 0 ? -1 : known == 0 ? 1 : 0;
        if (status == 0)
            status = put_model(&buf, 0x12, message, message_fields, COUNT(message_fields));
    }
    PyObject *result = status == 0   ? PyBytes_FromStringAndSize(buf.data, buf.len)
                       : status == 1 ? Py_NewRef(Py_None)
                                     : NULL;
    buf_free(&buf);
    return result;
}

static int intern_keys(MessageField *fields, int nfields) {
    for (int i = 0; i < nfields; i++) {
        if (fields[i].key == NULL &&
            (fields[i].key = PyUnicode_InternFromString(fields[i].name)) == NULL)
            return -1;
    }
    return 0;
}

PyObject *register_messages(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyType_Check(args[1]) || !PyType_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "register_messages(message_classes, tool_call_cls, function_cls)");
        return NULL;
    }
    if (intern_keys(message_fields, COUNT(message_fields)) < 0 ||
        intern_keys(call_fields, COUNT(call_fields)) < 0 ||
        intern_keys(function_fields, COUNT(function_fields)) < 0)
        return NULL;
    PyObject *classes = PyFrozenSet_New(args[0]);
    if (classes == NULL)
        return NULL;
    Py_XSETREF(message_classes, classes);
    Py_XSETREF(tool_call_cls, Py_NewRef(args[1]));
    Py_XSETREF(function_cls, Py_NewRef(args[2]));
    Py_RETURN_NONE;
}
