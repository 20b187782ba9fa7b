/* The messages of MESSAGES_SNAPSHOT from their models' __dict__ (messages.c). */
#ifndef AG_UI_MESSAGES_H
#define AG_UI_MESSAGES_H

#include "wire.h"

/* register_messages(message_classes, tool_call_cls, function_cls) */
PyObject *register_messages(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* encode_messages(messages) -> bytes | None: the repeated `messages` field (number 2) */
PyObject *encode_messages(PyObject *module, PyObject *messages);

#endif
