/* google.protobuf.Value / Struct <-> Python JSON values, compiled; the reference is
 * ag_ui/proto/_values.py (encode through the generated classes) and _value_bytes.py (decode).
 *
 * Same rules: integers must lie within +-(2**53-1) (else the Python path raises), NaN and the
 * infinities become null, an integral double within that range decodes to an int. Struct
 * entries are written in the order upb's deterministic serialization uses (bytewise on the
 * common prefix, the longer key first), so both paths give the same bytes. */
#include "values.h"

#include <math.h>

#define MAX_SAFE_INTEGER 9007199254740991LL

static int put_double(Buf *buf, double number) {
    if (buf_reserve(buf, 9) < 0)
        return -1;
    char *out = buf->data + buf->len;
    out[0] = 0x11; /* number_value */
#if PY_VERSION_HEX >= 0x030B0000
    if (PyFloat_Pack8(number, out + 1, 1) < 0)
#else
    if (_PyFloat_Pack8(number, (unsigned char *)out + 1, 1) < 0)
#endif
        return -1;
    buf->len += 9;
    return 0;
}

static int put_list(Buf *buf, PyObject *items, int depth) {
    /* Indexes re-checked each turn and items held: nothing here runs Python code, but an
     * allocation may run the garbage collector. */
    int list = PyList_Check(items);
    for (Py_ssize_t i = 0; i < (list ? PyList_GET_SIZE(items) : PyTuple_GET_SIZE(items)); i++) {
        PyObject *item = list ? PyList_GET_ITEM(items, i) : PyTuple_GET_ITEM(items, i);
        Py_ssize_t mark;
        Py_INCREF(item);
        int status = buf_byte(buf, 0x0A);
        if (status == 0)
            status = buf_open(buf, &mark);
        if (status == 0)
            status = put_value(buf, item, depth);
        if (status == 0)
            status = buf_close(buf, mark);
        Py_DECREF(item);
        if (status != 0)
            return status;
    }
    return 0;
}

int put_value(Buf *buf, PyObject *obj, int depth) {
    if (depth > VALUE_MAX_DEPTH)
        return 1;
    if (obj == Py_None)
        return buf_put(buf, "\x08\x00", 2); /* null_value */
    if (obj == Py_True)
        return buf_put(buf, "\x20\x01", 2); /* bool_value */
    if (obj == Py_False)
        return buf_put(buf, "\x20\x00", 2);
    if (PyUnicode_Check(obj)) {
        const char *data;
        Py_ssize_t size;
        PyObject *owner;
        int status = utf8_of(obj, &data, &size, &owner);
        if (status != 0)
            return status;
        if (buf_byte(buf, 0x1A) < 0 || buf_varint(buf, (uint64_t)size) < 0 ||
            buf_put(buf, data, size) < 0)
            status = -1;
        Py_XDECREF(owner);
        return status;
    }
    if (PyLong_Check(obj)) {
        int overflow;
        long long number = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (number == -1 && PyErr_Occurred())
            return -1;
        if (overflow || number < -MAX_SAFE_INTEGER || number > MAX_SAFE_INTEGER)
            return 1; /* the Python path says it would be rounded */
        return put_double(buf, (double)number);
    }
    if (PyFloat_Check(obj)) {
        double number = PyFloat_AS_DOUBLE(obj);
        if (!isfinite(number))
            return buf_put(buf, "\x08\x00", 2); /* as the SSE encoder writes it: null */
        return put_double(buf, number);
    }
    if (PyDict_Check(obj)) {
        Py_ssize_t mark;
        if (buf_byte(buf, 0x2A) < 0 || buf_open(buf, &mark) < 0)
            return -1;
        int status = put_struct(buf, obj, depth + 1);
        return status != 0 ? status : buf_close(buf, mark);
    }
    if (PyList_Check(obj) || PyTuple_Check(obj)) {
        Py_ssize_t mark;
        if (buf_byte(buf, 0x32) < 0 || buf_open(buf, &mark) < 0)
            return -1;
        int status = put_list(buf, obj, depth + 1);
        return status != 0 ? status : buf_close(buf, mark);
    }
    return 1; /* datetime, UUID, models...: the Python path converts them as SSE would */
}

typedef struct {
    const char *key;
    Py_ssize_t size;
    PyObject *owner; /* the key's UTF-8 bytes when not ASCII */
    PyObject *value;
} Entry;

static int compare_entries(const void *left, const void *right) {
    const Entry *a = left, *b = right;
    Py_ssize_t common = a->size < b->size ? a->size : b->size;
    int order = memcmp(a->key, b->key, (size_t)common);
    if (order != 0)
        return order;
    return a->size == b->size ? 0 : (a->size > b->size ? -1 : 1);
}

int put_struct(Buf *buf, PyObject *dict, int depth) {
    if (depth > VALUE_MAX_DEPTH)
        return 1;
    Py_ssize_t count = PyDict_GET_SIZE(dict);
    if (count == 0)
        return 0;
    Entry small[16];
    Entry *entries = count <= 16 ? small : PyMem_Malloc((size_t)count * sizeof(Entry));
    if (entries == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t filled = 0, at = 0;
    PyObject *key, *value;
    int status = 0;
    while (PyDict_Next(dict, &at, &key, &value)) {
        if (filled == count || !PyUnicode_Check(key)) {
            status = 1; /* non-str keys: the Python path converts them */
            break;
        }
        Entry *entry = &entries[filled];
        status = utf8_of(key, &entry->key, &entry->size, &entry->owner);
        if (status != 0)
            break;
        entry->value = Py_NewRef(value);
        if (entry->owner == NULL)
            entry->owner = Py_NewRef(key); /* keeps the borrowed ASCII data alive */
        filled++;
    }
    if (status == 0 && filled != count)
        status = 1; /* the dict changed size under us */
    if (status == 0) {
        qsort(entries, (size_t)filled, sizeof(Entry), compare_entries);
        for (Py_ssize_t i = 0; i < filled && status == 0; i++) {
            Py_ssize_t entry_mark, value_mark;
            if (buf_byte(buf, 0x0A) < 0 || buf_open(buf, &entry_mark) < 0 ||
                buf_byte(buf, 0x0A) < 0 || buf_varint(buf, (uint64_t)entries[i].size) < 0 ||
                buf_put(buf, entries[i].key, entries[i].size) < 0 || buf_byte(buf, 0x12) < 0 ||
                buf_open(buf, &value_mark) < 0) {
                status = -1;
                break;
            }
            status = put_value(buf, entries[i].value, depth);
            if (status == 0)
                status = buf_close(buf, value_mark);
            if (status == 0)
                status = buf_close(buf, entry_mark);
        }
    }
    for (Py_ssize_t i = 0; i < filled; i++) {
        Py_DECREF(entries[i].owner);
        Py_DECREF(entries[i].value);
    }
    if (entries != small)
        PyMem_Free(entries);
    return status;
}

/* --- read --------------------------------------------------------------------------------- */

static PyObject *read_list(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end, int depth) {
    PyObject *items = PyList_New(0);
    if (items == NULL)
        return NULL;
    while (pos < end) {
        Py_ssize_t stop;
        if (data[pos++] != 0x0A || !read_length(data, &pos, end, &stop) || pos == stop)
            goto fail;
        PyObject *item = read_value(data, pos, stop, depth);
        if (item == NULL)
            goto fail;
        int failed = PyList_Append(items, item);
        Py_DECREF(item);
        if (failed < 0)
            goto fail;
        pos = stop;
    }
    return items;
fail:
    Py_DECREF(items);
    return NULL;
}

PyObject *read_struct(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end, int depth) {
    if (depth > VALUE_MAX_DEPTH)
        return NULL;
    PyObject *result = PyDict_New();
    if (result == NULL)
        return NULL;
    while (pos < end) {
        /* One map entry: key (field 1), then value (field 2), both present. */
        Py_ssize_t stop, key_stop, value_stop;
        if (data[pos++] != 0x0A || !read_length(data, &pos, end, &stop))
            goto fail;
        if (pos >= stop || data[pos++] != 0x0A || !read_length(data, &pos, stop, &key_stop))
            goto fail;
        Py_ssize_t key_start = pos;
        pos = key_stop;
        if (pos >= stop || data[pos++] != 0x12 || !read_length(data, &pos, stop, &value_stop) ||
            value_stop != stop || pos == stop)
            goto fail;
        PyObject *key = read_text(data, key_start, key_stop);
        if (key == NULL)
            goto fail;
        PyObject *value = read_value(data, pos, stop, depth);
        if (value == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        int failed = PyDict_SetItem(result, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (failed < 0)
            goto fail;
        pos = stop;
    }
    return result;
fail:
    Py_DECREF(result);
    return NULL;
}

PyObject *read_value(const uint8_t *data, Py_ssize_t pos, Py_ssize_t end, int depth) {
    if (depth > VALUE_MAX_DEPTH || pos >= end)
        return NULL; /* an empty Value (no kind) is not JSON: the general path says so */
    uint8_t tag = data[pos++];
    Py_ssize_t stop;
    switch (tag) {
    case 0x1A: /* string_value */
        if (!read_length(data, &pos, end, &stop) || stop != end)
            return NULL;
        return read_text(data, pos, stop);
    case 0x11: { /* number_value */
        if (pos + 8 != end)
            return NULL;
#if PY_VERSION_HEX >= 0x030B0000
        double number = PyFloat_Unpack8((const char *)data + pos, 1);
#else
        double number = _PyFloat_Unpack8(data + pos, 1);
#endif
        if (number == -1.0 && PyErr_Occurred())
            return NULL;
        if (isfinite(number) && number == floor(number) && fabs(number) <= MAX_SAFE_INTEGER)
            return PyLong_FromDouble(number);
        return PyFloat_FromDouble(number);
    }
    case 0x2A: /* struct_value */
    case 0x32: /* list_value */
        if (!read_length(data, &pos, end, &stop) || stop != end)
            return NULL;
        return tag == 0x2A ? read_struct(data, pos, end, depth + 1)
                           : read_list(data, pos, end, depth + 1);
    case 0x20: /* bool_value */
        if (pos + 1 != end || data[pos] > 1)
            return NULL;
        return Py_NewRef(data[pos] ? Py_True : Py_False);
    case 0x08: /* null_value */
        if (pos + 1 != end || data[pos] > 0x7F)
            return NULL;
        Py_RETURN_NONE;
    default:
        return NULL;
    }
}
