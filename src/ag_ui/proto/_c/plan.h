/* The plan of one flat event arm (built in _fast.py, registered by speedups.c) and the state the
 * compiled paths share. */
#ifndef AG_UI_PLAN_H
#define AG_UI_PLAN_H

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
extern FlatPlan *plans_by_tag[MAX_ARM_TAG];
extern PyObject *plans_by_class; /* dict: class -> capsule(FlatPlan*) */

/* pydantic's slot descriptors (configure()), interned names and () (module init). */
extern PyObject *slot_dict, *slot_fields_set, *slot_extra, *slot_private;
extern PyObject *str_type, *str_timestamp, *str_raw_event, *str_metadata;
extern PyObject *empty_tuple;

/* encode_flat(event, framed=False) -> bytes | None (encode.c) */
PyObject *encode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* decode_flat(data, start=0, end=-1) -> event | None (decode.c) */
PyObject *decode_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
