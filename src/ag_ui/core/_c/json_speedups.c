/* The module ag_ui.core._json_speedups: the SSE / JSON fast paths of the flat events.
 *
 *   write   an event model's __dict__ -> its compact wire JSON (optionally framed as one SSE
 *           `data:` frame, as text or bytes), without going through pydantic-core
 *   read    compact wire JSON of a flat event -> the model, built in its slots as pydantic
 *           would leave them
 *
 * Same contract as the proto accelerator (ag_ui/proto/_c): the plans (wire names, kinds, the
 * omission rule, Literal sets, defaults) are built in ag_ui/core/_json_plans.py from the models
 * and registered here; this code only moves bytes. Whatever is not the plain shape (a value
 * that is not a str/int/float/bool/None/list/dict, a float Python would print with an
 * exponent, a lone surrogate, a duplicate key, an escape in a key, a number that is not an
 * int64...) returns None and the caller takes pydantic's path, which also gives the precise
 * errors. Tests compare both paths byte for byte and event for event.
 *
 * Why C: pydantic-core's to_json is 0.7 us of an event's 1.1 us SSE frame, most of it the
 * crossing into the serializer and its per-call state; the frame itself is a few dozen bytes.
 *
 * JSON strings are escaped as serde_json (which pydantic-core uses) escapes them: `"` and `\`,
 * \b \f \n \r \t, the other controls as \u00xx (lower-case hex); everything else as UTF-8.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_FIELDS 16
#define MAX_DEPTH 64
#define MAX_SAFE_INTEGER 9007199254740991LL

/* Field kinds, as _json_plans.py numbers them. */
enum Kind {
    K_TYPE = 0,  /* the type literal: always first, written from the plan's prefix */
    K_STR = 1,   /* str (optionally a Literal of strs: `allowed`) */
    K_INT = 2,   /* the timestamp: an int within +-MAX_SAFE_INTEGER */
    K_ANY = 3,   /* any JSON value */
    K_DICT = 4,  /* Dict[str, Any]: a JSON object */
    K_BOOL = 5,  /* bool */
    K_PATCH = 6, /* JSON Patch operations: written here, read by pydantic (their validator) */
    K_OTHER = 7, /* anything else: the fast paths only while it is None (written: omitted) */
};

typedef struct {
    PyObject *cls;
    PyObject *type_member;
    PyObject *type_name;  /* bytes: TEXT_MESSAGE_CONTENT */
    PyObject *prefix;     /* bytes: {"type":"TEXT_MESSAGE_CONTENT" */
    int nfields;          /* type excluded */
    int decodable;        /* the reader may build it (no post-init, no K_PATCH required...) */
    PyObject *names[MAX_FIELDS];  /* interned attribute names */
    PyObject *keys[MAX_FIELDS];   /* bytes: ,"messageId": */
    PyObject *aliases[MAX_FIELDS]; /* bytes: messageId */
    PyObject *pynames[MAX_FIELDS]; /* bytes: message_id */
    PyObject *allowed[MAX_FIELDS]; /* frozenset of str, or None */
    PyObject *defaults[MAX_FIELDS];
    PyObject *template; /* dict: type and every field at its default, in field order */
    uint8_t kinds[MAX_FIELDS], omit[MAX_FIELDS], nullable[MAX_FIELDS], required[MAX_FIELDS];
} Plan;

#define MAX_PLANS 64
static Plan *plans[MAX_PLANS];
static int nplans;
static PyObject *type_attr; /* "type" */
static PyObject *slot_fields_set, *slot_extra, *slot_private, *slot_dict;
static PyObject *empty_tuple;

static Plan *plan_of(PyTypeObject *type) {
    for (int i = 0; i < nplans; i++)
        if ((PyTypeObject *)plans[i]->cls == type)
            return plans[i];
    return NULL;
}

/* --- the output buffer -------------------------------------------------------------------- */

typedef struct {
    char *data;
    Py_ssize_t len, cap;
    char inline_data[1024];
} Buf;

static void buf_init(Buf *b) {
    b->data = b->inline_data;
    b->len = 0;
    b->cap = (Py_ssize_t)sizeof(b->inline_data);
}

static void buf_free(Buf *b) {
    if (b->data != b->inline_data)
        PyMem_Free(b->data);
}

static int buf_grow(Buf *b, Py_ssize_t more) {
    Py_ssize_t cap = b->cap;
    while (cap < b->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data = PyMem_Malloc((size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(data, b->data, (size_t)b->len);
    buf_free(b);
    b->data = data;
    b->cap = cap;
    return 0;
}

static inline int buf_reserve(Buf *b, Py_ssize_t more) {
    return b->len + more <= b->cap ? 0 : buf_grow(b, more);
}

static inline int buf_put(Buf *b, const char *s, Py_ssize_t n) {
    if (buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

static inline int buf_char(Buf *b, char c) {
    if (buf_reserve(b, 1) < 0)
        return -1;
    b->data[b->len++] = c;
    return 0;
}

static inline int buf_bytes(Buf *b, PyObject *bytes) {
    return buf_put(b, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
}

/* --- writing ------------------------------------------------------------------------------ */

/* Status of the writers: 0 written, 1 not the plain shape (pydantic's path), -1 error. */

/* 0: no escape; else the character after the backslash ('u' for \u00xx). */
static char escapes[256];

static void init_escapes(void) {
    for (int c = 0; c < 0x20; c++)
        escapes[c] = 'u';
    escapes['\b'] = 'b';
    escapes['\f'] = 'f';
    escapes['\n'] = 'n';
    escapes['\r'] = 'r';
    escapes['\t'] = 't';
    escapes['"'] = '"';
    escapes['\\'] = '\\';
}

static int put_escaped(Buf *b, const char *s, Py_ssize_t n) {
    /* Worst case 6 bytes per input byte, plus the quotes. */
    if (n > (PY_SSIZE_T_MAX - 2) / 6) {
        PyErr_NoMemory();
        return -1;
    }
    if (buf_reserve(b, n * 6 + 2) < 0)
        return -1;
    char *out = b->data + b->len;
    *out++ = '"';
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char e = escapes[c];
        if (!e)
            continue;
        memcpy(out, s + run, (size_t)(i - run));
        out += i - run;
        run = i + 1;
        *out++ = '\\';
        *out++ = e;
        if (e == 'u') {
            static const char hex[] = "0123456789abcdef";
            *out++ = '0';
            *out++ = '0';
            *out++ = hex[c >> 4];
            *out++ = hex[c & 15];
        }
    }
    memcpy(out, s + run, (size_t)(n - run));
    out += n - run;
    *out++ = '"';
    b->len = out - b->data;
    return 0;
}

static int put_str(Buf *b, PyObject *text) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear(); /* a lone surrogate: pydantic's path escapes it (core/_surrogates.py) */
        return 1;
    }
    return put_escaped(b, s, n);
}

static int put_int(Buf *b, PyObject *number) {
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        return 1;
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%lld", value);
    return buf_put(b, digits, n);
}

static int put_float(Buf *b, PyObject *number) {
    double value = PyFloat_AS_DOUBLE(number);
    if (!isfinite(value))
        return 1;
    /* Python's repr and serde_json's ryu both print the shortest digits that read back as the
     * same double; they differ only in where they switch to an exponent (and how they spell
     * it), so a repr with an exponent goes to pydantic. */
    char *repr = PyOS_double_to_string(value, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (repr == NULL)
        return -1;
    int status = strchr(repr, 'e') != NULL ? 1 : buf_put(b, repr, (Py_ssize_t)strlen(repr));
    PyMem_Free(repr);
    return status;
}

static int put_value(Buf *b, PyObject *value, int depth);

static int put_dict(Buf *b, PyObject *dict, int depth) {
    if (buf_char(b, '{') < 0)
        return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *item;
    int first = 1, status;
    while (PyDict_Next(dict, &pos, &key, &item)) {
        if (!PyUnicode_CheckExact(key))
            return 1;
        if (!first && buf_char(b, ',') < 0)
            return -1;
        first = 0;
        if ((status = put_str(b, key)) != 0)
            return status;
        if (buf_char(b, ':') < 0)
            return -1;
        if ((status = put_value(b, item, depth + 1)) != 0)
            return status;
    }
    return buf_char(b, '}');
}

static int put_value(Buf *b, PyObject *value, int depth) {
    if (depth > MAX_DEPTH)
        return 1;
    if (value == Py_None)
        return buf_put(b, "null", 4);
    if (value == Py_True)
        return buf_put(b, "true", 4);
    if (value == Py_False)
        return buf_put(b, "false", 5);
    if (PyUnicode_CheckExact(value))
        return put_str(b, value);
    if (PyLong_CheckExact(value))
        return put_int(b, value);
    if (PyFloat_CheckExact(value))
        return put_float(b, value);
    if (PyList_CheckExact(value)) {
        if (buf_char(b, '[') < 0)
            return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            if (i && buf_char(b, ',') < 0)
                return -1;
            int status = put_value(b, PyList_GET_ITEM(value, i), depth + 1);
            if (status != 0)
                return status;
        }
        return buf_char(b, ']');
    }
    /* Subclasses too: PatchOperation is a dict whose keys are also attributes. */
    if (PyDict_Check(value))
        return put_dict(b, value, depth);
    return 1;
}

static int put_event(Buf *b, PyObject *event, const Plan *plan) {
    PyObject *values = PyObject_GenericGetDict(event, NULL);
    if (values == NULL)
        return -1;
    int status = 1;
    PyObject *kind = PyDict_GetItemWithError(values, type_attr);
    if (kind != plan->type_member)
        goto done; /* assigned another type: pydantic writes what is there */
    if (buf_bytes(b, plan->prefix) < 0)
        goto error;
    for (int i = 0; i < plan->nfields; i++) {
        PyObject *value = PyDict_GetItemWithError(values, plan->names[i]);
        if (value == NULL) {
            if (PyErr_Occurred())
                goto error;
            goto done;
        }
        if (value == Py_None) {
            if (plan->omit[i])
                continue;
            if (!plan->nullable[i])
                goto done;
        }
        if (buf_bytes(b, plan->keys[i]) < 0)
            goto error;
        int ok;
        switch (value == Py_None ? K_ANY : plan->kinds[i]) {
        case K_STR:
            ok = PyUnicode_CheckExact(value);
            break;
        case K_INT:
            ok = PyLong_CheckExact(value);
            break;
        case K_BOOL:
            ok = PyBool_Check(value);
            break;
        case K_DICT:
            ok = PyDict_Check(value);
            break;
        case K_PATCH:
            ok = PyList_CheckExact(value);
            break;
        case K_ANY:
            ok = 1;
            break;
        default:
            ok = 0;
        }
        if (!ok)
            goto done;
        if ((status = put_value(b, value, 0)) != 0)
            goto finish;
    }
    PyObject *extra =
        Py_TYPE(slot_extra)->tp_descr_get(slot_extra, event, (PyObject *)Py_TYPE(event));
    if (extra == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            goto error;
        PyErr_Clear();
    } else if (extra != Py_None) {
        if (!PyDict_CheckExact(extra)) {
            Py_DECREF(extra);
            goto done;
        }
        Py_ssize_t pos = 0;
        PyObject *key, *item;
        status = 0;
        while (status == 0 && PyDict_Next(extra, &pos, &key, &item)) {
            if (!PyUnicode_CheckExact(key)) {
                status = 1;
                break;
            }
            status = buf_char(b, ',') < 0 ? -1 : put_str(b, key);
            if (status == 0)
                status = buf_char(b, ':') < 0 ? -1 : put_value(b, item, 0);
        }
        Py_DECREF(extra);
        if (status != 0)
            goto finish;
    } else {
        Py_DECREF(extra);
    }
    status = buf_char(b, '}');
    goto finish;
error:
    status = -1;
    goto finish;
done:
    status = PyErr_Occurred() ? -1 : 1;
finish:
    Py_DECREF(values);
    return status;
}

enum Output { OUT_JSON, OUT_SSE_BYTES, OUT_SSE_TEXT };

static PyObject *write_event(PyObject *event, enum Output output) {
    Plan *plan = plan_of(Py_TYPE(event));
    if (plan == NULL)
        Py_RETURN_NONE;
    Buf b;
    buf_init(&b);
    PyObject *result = NULL;
    if (output != OUT_JSON && buf_put(&b, "data: ", 6) < 0)
        goto finish;
    int status = put_event(&b, event, plan);
    if (status < 0)
        goto finish;
    if (status > 0) {
        result = Py_NewRef(Py_None);
        goto finish;
    }
    if (output != OUT_JSON && buf_put(&b, "\n\n", 2) < 0)
        goto finish;
    /* Every string was written from valid UTF-8: decoding cannot fail. */
    result = output == OUT_SSE_TEXT ? PyUnicode_DecodeUTF8(b.data, b.len, NULL)
                                    : PyBytes_FromStringAndSize(b.data, b.len);
finish:
    buf_free(&b);
    return result;
}

/* json(event) -> bytes | None */
static PyObject *py_json(PyObject *module, PyObject *event) {
    (void)module;
    return write_event(event, OUT_JSON);
}

/* sse_bytes(event) -> bytes | None: b"data: <json>\n\n" */
static PyObject *py_sse_bytes(PyObject *module, PyObject *event) {
    (void)module;
    return write_event(event, OUT_SSE_BYTES);
}

/* sse_text(event) -> str | None: "data: <json>\n\n" */
static PyObject *py_sse_text(PyObject *module, PyObject *event) {
    (void)module;
    return write_event(event, OUT_SSE_TEXT);
}

/* --- reading ------------------------------------------------------------------------------ */

/* The readers return a new reference, or NULL: with an exception set on error, without one
 * when the text is not the plain shape (pydantic's path decides). */
typedef struct {
    const char *p, *end;
} Cur;

static inline void skip_ws(Cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char ch = p[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v |= (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            v |= (unsigned)(ch - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* The string whose opening quote c->p is on. */
static PyObject *read_str(Cur *c) {
    const char *start = ++c->p, *p = start;
    int escaped = 0;
    while (p < c->end && *p != '"') {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x20)
            return NULL; /* a raw control character: not JSON */
        if (ch == '\\') {
            escaped = 1;
            if (++p >= c->end)
                return NULL;
        }
        p++;
    }
    if (p >= c->end)
        return NULL;
    c->p = p + 1;
    PyObject *text;
    if (!escaped) {
        text = PyUnicode_DecodeUTF8(start, p - start, NULL);
    } else {
        Py_ssize_t n = p - start;
        char *out = PyMem_Malloc((size_t)n + 1), *o = out;
        if (out == NULL)
            return PyErr_NoMemory();
        for (const char *q = start; q < p; q++) {
            if (*q != '\\') {
                *o++ = *q;
                continue;
            }
            char e = *++q;
            unsigned cp;
            switch (e) {
            case '"': case '\\': case '/':
                *o++ = e;
                continue;
            case 'b': *o++ = '\b'; continue;
            case 'f': *o++ = '\f'; continue;
            case 'n': *o++ = '\n'; continue;
            case 'r': *o++ = '\r'; continue;
            case 't': *o++ = '\t'; continue;
            case 'u':
                if (p - q < 5 || !hex4(q + 1, &cp))
                    goto plain_shape_not;
                q += 4;
                if (cp >= 0xD800 && cp <= 0xDFFF) {
                    unsigned low;
                    /* A pair, or a lone surrogate (decoding.py keeps it as json.loads does). */
                    if (cp >= 0xDC00 || p - q < 7 || q[1] != '\\' || q[2] != 'u' ||
                        !hex4(q + 3, &low) || low < 0xDC00 || low > 0xDFFF)
                        goto plain_shape_not;
                    q += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                /* \u escapes are at least 6 bytes, their UTF-8 at most 4. */
                if (cp < 0x80) {
                    *o++ = (char)cp;
                } else if (cp < 0x800) {
                    *o++ = (char)(0xC0 | (cp >> 6));
                    *o++ = (char)(0x80 | (cp & 0x3F));
                } else if (cp < 0x10000) {
                    *o++ = (char)(0xE0 | (cp >> 12));
                    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                    *o++ = (char)(0x80 | (cp & 0x3F));
                } else {
                    *o++ = (char)(0xF0 | (cp >> 18));
                    *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
                    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                    *o++ = (char)(0x80 | (cp & 0x3F));
                }
                continue;
            default:
                goto plain_shape_not;
            }
        }
        text = PyUnicode_DecodeUTF8(out, o - out, NULL);
        PyMem_Free(out);
        goto decoded;
    plain_shape_not:
        PyMem_Free(out);
        return NULL;
    }
decoded:
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
        PyErr_Clear(); /* not UTF-8: pydantic's path names it */
    return text;
}

static PyObject *read_number(Cur *c) {
    const char *start = c->p, *p = start;
    if (p < c->end && *p == '-')
        p++;
    if (p >= c->end || *p < '0' || *p > '9')
        return NULL;
    if (*p == '0' && p + 1 < c->end && p[1] >= '0' && p[1] <= '9')
        return NULL; /* a leading zero */
    while (p < c->end && *p >= '0' && *p <= '9')
        p++;
    int is_float = 0;
    if (p < c->end && *p == '.') {
        is_float = 1;
        if (++p >= c->end || *p < '0' || *p > '9')
            return NULL;
        while (p < c->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < c->end && (*p == 'e' || *p == 'E'))
        return NULL; /* exponents: pydantic's path */
    Py_ssize_t n = p - start;
    char digits[32];
    if (n >= (Py_ssize_t)sizeof digits || (!is_float && n > 18))
        return NULL; /* beyond int64 (or a long float): pydantic's path */
    memcpy(digits, start, (size_t)n);
    digits[n] = 0;
    c->p = p;
    if (is_float) {
        double value = PyOS_string_to_double(digits, NULL, NULL);
        if (value == -1.0 && PyErr_Occurred())
            return NULL;
        return PyFloat_FromDouble(value);
    }
    return PyLong_FromLongLong(strtoll(digits, NULL, 10));
}

static PyObject *read_value(Cur *c, int depth);

static PyObject *read_object(Cur *c, int depth) {
    PyObject *dict = PyDict_New();
    if (dict == NULL)
        return NULL;
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return dict;
    }
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end || *c->p != '"')
            goto fail;
        PyObject *key = read_str(c);
        if (key == NULL)
            goto fail;
        skip_ws(c);
        int dup = PyDict_Contains(dict, key);
        if (dup != 0 || c->p >= c->end || *c->p != ':') { /* duplicates: pydantic decides */
            Py_DECREF(key);
            goto fail;
        }
        c->p++;
        PyObject *item = read_value(c, depth + 1);
        if (item == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        int failed = PyDict_SetItem(dict, key, item);
        Py_DECREF(key);
        Py_DECREF(item);
        if (failed)
            goto fail;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            return dict;
        }
        goto fail;
    }
fail:
    Py_DECREF(dict);
    return NULL;
}

static PyObject *read_array(Cur *c, int depth) {
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return list;
    }
    for (;;) {
        PyObject *item = read_value(c, depth + 1);
        if (item == NULL)
            goto fail;
        int failed = PyList_Append(list, item);
        Py_DECREF(item);
        if (failed)
            goto fail;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == ']') {
            c->p++;
            return list;
        }
        goto fail;
    }
fail:
    Py_DECREF(list);
    return NULL;
}

static int literal(Cur *c, const char *word, Py_ssize_t n) {
    if (c->end - c->p < n || memcmp(c->p, word, (size_t)n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static PyObject *read_value(Cur *c, int depth) {
    skip_ws(c);
    if (c->p >= c->end || depth > MAX_DEPTH)
        return NULL;
    switch (*c->p) {
    case '"':
        return read_str(c);
    case '{':
        return read_object(c, depth);
    case '[':
        return read_array(c, depth);
    case 't':
        return literal(c, "true", 4) ? Py_NewRef(Py_True) : NULL;
    case 'f':
        return literal(c, "false", 5) ? Py_NewRef(Py_False) : NULL;
    case 'n':
        return literal(c, "null", 4) ? Py_NewRef(Py_None) : NULL;
    default:
        return read_number(c);
    }
}

static int key_is(PyObject *bytes, const char *key, Py_ssize_t n) {
    return PyBytes_GET_SIZE(bytes) == n && memcmp(PyBytes_AS_STRING(bytes), key, (size_t)n) == 0;
}

static int set_slot(PyObject *descriptor, PyObject *instance, PyObject *value) {
    return Py_TYPE(descriptor)->tp_descr_set(descriptor, instance, value);
}

/* The value of field i, or NULL (not the plain shape, or an error). */
static PyObject *read_field(Cur *c, const Plan *plan, int i) {
    skip_ws(c);
    if (c->p >= c->end)
        return NULL;
    if (*c->p == 'n') {
        if (!plan->nullable[i] || !literal(c, "null", 4))
            return NULL;
        return Py_NewRef(Py_None);
    }
    PyObject *value;
    switch (plan->kinds[i]) {
    case K_STR:
        if (*c->p != '"' || (value = read_str(c)) == NULL)
            return NULL;
        if (plan->allowed[i] != Py_None) {
            int ok = PySet_Contains(plan->allowed[i], value);
            if (ok <= 0) {
                Py_DECREF(value);
                return NULL;
            }
        }
        return value;
    case K_INT: {
        if (*c->p == '-' ? 0 : (*c->p < '0' || *c->p > '9'))
            return NULL;
        const char *mark = c->p;
        value = read_number(c);
        if (value == NULL)
            return NULL;
        if (!PyLong_CheckExact(value)) {
            Py_DECREF(value);
            c->p = mark;
            return NULL;
        }
        long long number = PyLong_AsLongLong(value);
        if (number < -MAX_SAFE_INTEGER || number > MAX_SAFE_INTEGER) {
            Py_DECREF(value);
            return NULL;
        }
        return value;
    }
    case K_BOOL:
        if (literal(c, "true", 4))
            return Py_NewRef(Py_True);
        if (literal(c, "false", 5))
            return Py_NewRef(Py_False);
        return NULL;
    case K_DICT:
        return *c->p == '{' ? read_object(c, 1) : NULL;
    case K_ANY:
        return read_value(c, 1);
    default:
        return NULL;
    }
}

static PyObject *read_event(const char *data, Py_ssize_t size) {
    static const char head[] = "{\"type\":\"";
    Py_ssize_t head_len = (Py_ssize_t)sizeof head - 1;
    if (size < head_len || memcmp(data, head, (size_t)head_len) != 0)
        return NULL;
    const char *name = data + head_len, *stop = memchr(name, '"', (size_t)(size - head_len));
    if (stop == NULL)
        return NULL;
    /* A stream repeats a few types (deltas in a row): the last one is tried first. */
    static Plan *last;
    Plan *plan = NULL;
    if (last != NULL && key_is(last->type_name, name, stop - name)) {
        plan = last;
    } else {
        for (int i = 0; i < nplans; i++) {
            if (plans[i]->decodable && key_is(plans[i]->type_name, name, stop - name)) {
                plan = last = plans[i];
                break;
            }
        }
    }
    if (plan == NULL)
        return NULL;
    Cur c = {stop + 1, data + size};
    PyObject *values[MAX_FIELDS] = {NULL};
    PyObject *extra = NULL, *result = NULL;
    int next = 0; /* keys mostly come in field order: the field after the last one is tried first */
    for (;;) {
        skip_ws(&c);
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        if (c.p >= c.end || *c.p != ',')
            goto finish;
        c.p++;
        skip_ws(&c);
        if (c.p >= c.end || *c.p != '"')
            goto finish;
        const char *key = c.p + 1, *key_end = key;
        while (key_end < c.end && *key_end != '"' && *key_end != '\\')
            key_end++;
        if (key_end >= c.end || *key_end != '"')
            goto finish; /* an escape in a key: pydantic's path */
        Py_ssize_t key_len = key_end - key;
        c.p = key_end + 1;
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ':')
            goto finish;
        c.p++;
        if (key_len == 4 && memcmp(key, "type", 4) == 0)
            goto finish; /* "type" twice */
        int index = -1;
        for (int k = 0; k < plan->nfields; k++) {
            int i = (next + k) % plan->nfields;
            if (key_is(plan->aliases[i], key, key_len) || key_is(plan->pynames[i], key, key_len)) {
                index = i;
                next = i + 1;
                break;
            }
        }
        if (index >= 0) {
            if (values[index] != NULL)
                goto finish; /* twice, or by both its names */
            if ((values[index] = read_field(&c, plan, index)) == NULL)
                goto finish;
            continue;
        }
        /* Not a field: kept as an extra, under the name it came with. */
        PyObject *name_obj = PyUnicode_DecodeUTF8(key, key_len, NULL);
        if (name_obj == NULL) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
                PyErr_Clear();
            goto finish;
        }
        if (extra == NULL && (extra = PyDict_New()) == NULL) {
            Py_DECREF(name_obj);
            goto finish;
        }
        PyObject *item = NULL;
        int dup = PyDict_Contains(extra, name_obj);
        if (dup == 0)
            item = read_value(&c, 1);
        int failed = item == NULL || PyDict_SetItem(extra, name_obj, item) < 0;
        Py_DECREF(name_obj);
        Py_XDECREF(item);
        if (failed)
            goto finish;
    }
    skip_ws(&c);
    if (c.p != c.end)
        goto finish; /* text after the object */
    for (int i = 0; i < plan->nfields; i++)
        if (values[i] == NULL && plan->required[i])
            goto finish; /* pydantic's path names the missing field */

    /* A copy of the template keeps the model's field order (as pydantic fills __dict__) and
     * its size: setting the given fields only replaces values. */
    PyObject *dict = PyDict_Copy(plan->template), *fields_set = PySet_New(NULL);
    if (dict == NULL || fields_set == NULL || PySet_Add(fields_set, type_attr) < 0)
        goto built;
    for (int i = 0; i < plan->nfields; i++) {
        if (values[i] != NULL && (PyDict_SetItem(dict, plan->names[i], values[i]) < 0 ||
                                  PySet_Add(fields_set, plan->names[i]) < 0))
            goto built;
    }
    if (extra == NULL) {
        if ((extra = PyDict_New()) == NULL)
            goto built;
    } else { /* pydantic counts extras as set too */
        Py_ssize_t pos = 0;
        PyObject *key, *item;
        while (PyDict_Next(extra, &pos, &key, &item))
            if (PySet_Add(fields_set, key) < 0)
                goto built;
    }
    PyObject *instance = PyBaseObject_Type.tp_new((PyTypeObject *)plan->cls, empty_tuple, NULL);
    if (instance == NULL)
        goto built;
    if (set_slot(slot_dict, instance, dict) < 0 || set_slot(slot_fields_set, instance, fields_set) < 0 ||
        set_slot(slot_extra, instance, extra) < 0 || set_slot(slot_private, instance, Py_None) < 0) {
        Py_DECREF(instance);
        goto built;
    }
    result = instance;
built:
    Py_XDECREF(dict);
    Py_XDECREF(fields_set);
finish:
    for (int i = 0; i < plan->nfields; i++)
        Py_XDECREF(values[i]);
    Py_XDECREF(extra);
    return result;
}

/* read(data: str | bytes) -> event | None */
static PyObject *py_read(PyObject *module, PyObject *data) {
    (void)module;
    const char *text;
    Py_ssize_t size;
    if (PyBytes_CheckExact(data)) {
        text = PyBytes_AS_STRING(data);
        size = PyBytes_GET_SIZE(data);
    } else if (PyUnicode_CheckExact(data)) {
        text = PyUnicode_AsUTF8AndSize(data, &size);
        if (text == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
                return NULL;
            PyErr_Clear(); /* a lone surrogate in the text: decoding.py's own path */
            Py_RETURN_NONE;
        }
    } else {
        Py_RETURN_NONE;
    }
    PyObject *event = read_event(text, size);
    if (event == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return event;
}

/* --- registration ------------------------------------------------------------------------- */

/* configure(dict_slot, fields_set_slot, extra_slot, private_slot) */
static PyObject *py_configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "configure(dict, fields_set, extra, private)");
        return NULL;
    }
    PyObject **slots[4] = {&slot_dict, &slot_fields_set, &slot_extra, &slot_private};
    for (int i = 0; i < 4; i++) {
        if (Py_TYPE(args[i])->tp_descr_set == NULL || Py_TYPE(args[i])->tp_descr_get == NULL) {
            PyErr_SetString(PyExc_TypeError, "configure() takes data descriptors");
            return NULL;
        }
        Py_XSETREF(*slots[i], Py_NewRef(args[i]));
    }
    Py_RETURN_NONE;
}

/* register(cls, type_member, type_name: bytes, prefix: bytes, decodable: bool, fields) with
 * fields a tuple of (name, key, alias, pyname, kind, omit, nullable, required, allowed,
 * default). */
static PyObject *py_register(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *cls, *type_member, *type_name, *prefix, *fields;
    int decodable;
    if (!PyArg_ParseTuple(args, "O!OO!O!pO!:register", &PyType_Type, &cls, &type_member,
                          &PyBytes_Type, &type_name, &PyBytes_Type, &prefix, &decodable,
                          &PyTuple_Type, &fields))
        return NULL;
    if (slot_dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "register() before configure()");
        return NULL;
    }
    Py_ssize_t nfields = PyTuple_GET_SIZE(fields);
    if (nfields > MAX_FIELDS || nplans >= MAX_PLANS || plan_of((PyTypeObject *)cls) != NULL) {
        PyErr_SetString(PyExc_ValueError, "register(): too many fields or plans, or twice");
        return NULL;
    }
    Plan *plan = PyMem_Calloc(1, sizeof(Plan));
    if (plan == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < nfields; i++) {
        PyObject *name, *key, *alias, *pyname, *allowed, *dflt;
        unsigned int kind;
        int omit, nullable, required;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fields, i), "UO!O!O!IpppOO:field", &name,
                              &PyBytes_Type, &key, &PyBytes_Type, &alias, &PyBytes_Type,
                              &pyname, &kind, &omit, &nullable, &required, &allowed, &dflt))
            goto error;
        if (kind > K_OTHER || kind == K_TYPE ||
            (allowed != Py_None && !PyFrozenSet_Check(allowed))) {
            PyErr_SetString(PyExc_ValueError, "register(): a field outside the C path's kinds");
            goto error;
        }
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        plan->names[i] = name;
        plan->keys[i] = Py_NewRef(key);
        plan->aliases[i] = Py_NewRef(alias);
        plan->pynames[i] = Py_NewRef(pyname);
        plan->allowed[i] = Py_NewRef(allowed);
        plan->defaults[i] = Py_NewRef(dflt);
        plan->kinds[i] = (uint8_t)kind;
        plan->omit[i] = (uint8_t)omit;
        plan->nullable[i] = (uint8_t)nullable;
        plan->required[i] = (uint8_t)required;
        plan->nfields = (int)i + 1;
    }
    if ((plan->template = PyDict_New()) == NULL ||
        PyDict_SetItem(plan->template, type_attr, type_member) < 0)
        goto error;
    for (int i = 0; i < plan->nfields; i++)
        if (PyDict_SetItem(plan->template, plan->names[i], plan->defaults[i]) < 0)
            goto error;
    plan->cls = Py_NewRef(cls);
    plan->type_member = Py_NewRef(type_member);
    plan->type_name = Py_NewRef(type_name);
    plan->prefix = Py_NewRef(prefix);
    plan->decodable = decodable;
    plans[nplans++] = plan; /* kept for the life of the process */
    Py_RETURN_NONE;
error:
    for (int i = 0; i < plan->nfields; i++) {
        Py_XDECREF(plan->names[i]);
        Py_XDECREF(plan->keys[i]);
        Py_XDECREF(plan->aliases[i]);
        Py_XDECREF(plan->pynames[i]);
        Py_XDECREF(plan->allowed[i]);
        Py_XDECREF(plan->defaults[i]);
    }
    Py_XDECREF(plan->template);
    PyMem_Free(plan);
    return NULL;
}

static PyMethodDef methods[] = {
    {"sse_text", py_sse_text, METH_O, "sse_text(event) -> str | None"},
    {"sse_bytes", py_sse_bytes, METH_O, "sse_bytes(event) -> bytes | None"},
    {"json", py_json, METH_O, "json(event) -> bytes | None"},
    {"read", py_read, METH_O, "read(data) -> event | None"},
    {"configure", (PyCFunction)(void (*)(void))py_configure, METH_FASTCALL,
     "configure(dict_slot, fields_set_slot, extra_slot, private_slot)"},
    {"register", py_register, METH_VARARGS,
     "register(cls, type_member, type_name, prefix, decodable, fields)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "ag_ui.core._json_speedups",
    "Compiled SSE/JSON fast paths of the flat events (see ag_ui/core/_json_plans.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__json_speedups(void) {
    init_escapes();
    empty_tuple = PyTuple_New(0);
    type_attr = PyUnicode_InternFromString("type");
    if (empty_tuple == NULL || type_attr == NULL)
        return NULL;
    return PyModule_Create(&module_def);
}
