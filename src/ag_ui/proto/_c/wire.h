/* Protobuf wire primitives shared by the compiled paths: varints and a growable output buffer
 * in which length-delimited fields are written in place (see buf_open / buf_close). */
#ifndef AG_UI_WIRE_H
#define AG_UI_WIRE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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

/* Output buffer: starts in `inline_data` (most events fit), moves to the heap when it grows. */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
    char inline_data[512];
} Buf;

static inline void buf_init(Buf *buf) {
    buf->data = buf->inline_data;
    buf->len = 0;
    buf->cap = (Py_ssize_t)sizeof(buf->inline_data);
}

static inline void buf_free(Buf *buf) {
    if (buf->data != buf->inline_data)
        PyMem_Free(buf->data);
}

/* Room for `more` bytes; -1 with MemoryError set when that fails. */
static inline int buf_reserve(Buf *buf, Py_ssize_t more) {
    if (buf->len + more <= buf->cap)
        return 0;
    Py_ssize_t cap = buf->cap;
    while (cap < buf->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data;
    if (buf->data == buf->inline_data) {
        data = PyMem_Malloc((size_t)cap);
        if (data != NULL)
            memcpy(data, buf->inline_data, (size_t)buf->len);
    } else {
        data = PyMem_Realloc(buf->data, (size_t)cap);
    }
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buf->data = data;
    buf->cap = cap;
    return 0;
}

static inline int buf_put(Buf *buf, const void *bytes, Py_ssize_t size) {
    if (buf_reserve(buf, size) < 0)
        return -1;
    memcpy(buf->data + buf->len, bytes, (size_t)size);
    buf->len += size;
    return 0;
}

static inline int buf_byte(Buf *buf, uint8_t byte) {
    if (buf_reserve(buf, 1) < 0)
        return -1;
    buf->data[buf->len++] = (char)byte;
    return 0;
}

static inline int buf_varint(Buf *buf, uint64_t value) {
    if (buf_reserve(buf, 10) < 0)
        return -1;
    buf->len = write_varint(buf->data + buf->len, value) - buf->data;
    return 0;
}

/* A length-delimited field's body is written in place after a one-byte length placeholder
 * (most bodies are under 128 bytes); buf_close shifts the body when its length needs more. */
static inline int buf_open(Buf *buf, Py_ssize_t *mark) {
    if (buf_reserve(buf, 1) < 0)
        return -1;
    *mark = buf->len++;
    return 0;
}

static inline int buf_close(Buf *buf, Py_ssize_t mark) {
    Py_ssize_t size = buf->len - mark - 1;
    int extra = varint_size((uint64_t)size) - 1;
    if (extra) {
        if (buf_reserve(buf, extra) < 0)
            return -1;
        memmove(buf->data + mark + 1 + extra, buf->data + mark + 1, (size_t)size);
        buf->len += extra;
    }
    write_varint(buf->data + mark, (uint64_t)size);
    return 0;
}

/* The body of a length-delimited field starting at *pos; 0 when it does not fit in end. */
static inline int read_length(const uint8_t *data, Py_ssize_t *pos, Py_ssize_t end,
                              Py_ssize_t *stop) {
    uint64_t size;
    if (!read_varint(data, pos, end, &size) || size > (uint64_t)(end - *pos))
        return 0;
    *stop = *pos + (Py_ssize_t)size;
    return 1;
}

/* The str of the UTF-8 bytes data[pos:stop]; NULL with no error set when they are not valid
 * UTF-8 (the general path names it), NULL with an error on failure. */
static inline PyObject *read_text(const uint8_t *data, Py_ssize_t pos, Py_ssize_t stop) {
    PyObject *text = PyUnicode_DecodeUTF8((const char *)data + pos, stop - pos, "strict");
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
        PyErr_Clear();
    return text;
}

/* UTF-8 of a str: borrowed for ASCII, else a new bytes object in *owner (not
 * PyUnicode_AsUTF8AndSize, which would keep a UTF-8 copy on the str for the rest of its life).
 * 1 when it has no UTF-8 form (a lone surrogate: the general path reports it), -1 on error. */
static inline int utf8_of(PyObject *text, const char **data, Py_ssize_t *size,
                          PyObject **owner) {
    *owner = NULL;
    if (PyUnicode_IS_COMPACT_ASCII(text)) {
        *data = (const char *)PyUnicode_DATA(text);
        *size = PyUnicode_GET_LENGTH(text);
        return 0;
    }
    PyObject *encoded = PyUnicode_AsUTF8String(text);
    if (encoded == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear();
        return 1;
    }
    *data = PyBytes_AS_STRING(encoded);
    *size = PyBytes_GET_SIZE(encoded);
    *owner = encoded;
    return 0;
}

#endif
