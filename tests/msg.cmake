# Thread message queues, message-only windows, SendMessage, WM_TIMER (issue 17, docs/msg.md)
nspa_add_test(msg_queue SOURCES tests/msg_queue.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(msg_msgwait SOURCES tests/msg_msgwait.c WIN32 THREADED TIMEOUT 60)
