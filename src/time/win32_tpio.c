/*
 * Thread-pool I/O over the I/O module's completion ports: CreateThreadpoolIo,
 * StartThreadpoolIo, CancelThreadpoolIo, WaitForThreadpoolIoCallbacks,
 * CloseThreadpoolIo, and the legacy BindIoCompletionCallback.
 *
 * A TP_IO has a completion port of its own, with the file associated to it (a handle is
 * associated with one port, so a second CreateThreadpoolIo or BindIoCompletionCallback
 * on it fails, as on Windows). The port calls back at each packet it queues
 * (io_port_set_notify: under its lock, on whichever thread completed the operation:
 * the I/O engine's, or the issuer's when it completed at once) and that call is one
 * submission of the object to its pool: no thread of ours waits on the port and nothing
 * is allocated per completion (the packet is the I/O module's operation record). A
 * submission's callback takes one packet off the port (io_port_take_entry: without
 * waiting, and without counting the worker as an active thread of the port) and calls
 * the program with it. So the packets and the submissions are counted alike, and a
 * cancel of pending callbacks drops as many packets as it dropped submissions.
 *
 * StartThreadpoolIo counts an expected completion; CancelThreadpoolIo takes one back
 * (the operation failed at once, or succeeded at once on a handle with
 * FILE_SKIP_COMPLETION_PORT_ON_SUCCESS: no packet comes). A packet that comes with no
 * expected completion is dropped and its callback not run (Windows' behaviour there is
 * undefined; Wine drops it too).
 *
 * BindIoCompletionCallback: every bound file goes to one port of the process, with the
 * routine as the association key, served by one object on the default pool.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "io/io_api.h"
#include "time/time_internal.h"
#include "win32/win32_error.h"

struct tp_io_obj {
    struct tp_obj o;                     /* first: a PTP_IO is this */
    HANDLE port;
    uint32_t expected;                   /* StartThreadpoolIo - completions - cancels */
};

static inline uint32_t H32(HANDLE h) { return (uint32_t)(uintptr_t)h; }

/* the port queued a packet (its lock held): one submission */
static void io_posted(void *ctx)
{
    tp_submit(ctx, 0);
}

static void io_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    struct tp_io_obj *io = (struct tp_io_obj *)o;
    struct io_entry e;
    if (!io_port_take_entry(H32(io->port), &e)) return;
    uint32_t n = __atomic_load_n(&io->expected, __ATOMIC_RELAXED);
    do {
        if (!n) return;                  /* not started: dropped */
    } while (!__atomic_compare_exchange_n(&io->expected, &n, n - 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    ULONG res = e.internal ? win32_error_from_status((NTSTATUS)e.internal, WIN32_ERR_IO) : NO_ERROR;
    ((PTP_WIN32_IO_CALLBACK)o->fn)((PTP_CALLBACK_INSTANCE)i, o->ctx, e.ov, res, e.bytes, (PTP_IO)o);
}

/* after close, when idle: no packet can call back any more (the port's lock), and the
 * port goes with its last reference (the file keeps one while it is open) */
static void io_destroy(struct tp_obj *o)
{
    struct tp_io_obj *io = (struct tp_io_obj *)o;
    CloseHandle(io->port);
    tp_obj_release(o);
    free(io);
}

/* closing: no more submissions from the port (the object may be freed after) */
static void io_stop(struct tp_obj *o)
{
    io_port_set_notify(H32(((struct tp_io_obj *)o)->port), NULL, NULL);
}

NSPA_EXPORT PTP_IO WINAPI CreateThreadpoolIo(HANDLE file, PTP_WIN32_IO_CALLBACK fn, PVOID ctx,
                                             PTP_CALLBACK_ENVIRON env)
{
    if (!fn || !file || file == INVALID_HANDLE_VALUE) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    struct tp_io_obj *io = calloc(1, sizeof(*io));
    if (!io) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    io->port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    if (!io->port) {
        free(io);
        return NULL;                     /* the last error is the port's */
    }
    io->o.invoke = io_invoke;
    io->o.destroy = io_destroy;
    io->o.stop = io_stop;
    tp_env_setup(&io->o, TPK_IO, (void *)fn, ctx, env);
    /* complete before the association: a packet may come as soon as it is made */
    io_port_set_notify(H32(io->port), io_posted, &io->o);
    if (!CreateIoCompletionPort(file, io->port, 0, 0)) {
        DWORD err = GetLastError();      /* another port already, or not a file */
        io_port_set_notify(H32(io->port), NULL, NULL);
        io->o.fin_cb = NULL;             /* never made: no finalization callback */
        tp_obj_release(&io->o);
        CloseHandle(io->port);
        free(io);
        SetLastError(err);
        return NULL;
    }
    return (PTP_IO)io;
}

static struct tp_io_obj *io_of(PTP_IO p)
{
    struct tp_io_obj *io = (struct tp_io_obj *)p;
    return io && io->o.kind == TPK_IO ? io : NULL;
}

NSPA_EXPORT void WINAPI StartThreadpoolIo(PTP_IO p)
{
    struct tp_io_obj *io = io_of(p);
    if (io) __atomic_add_fetch(&io->expected, 1, __ATOMIC_ACQ_REL);
}

NSPA_EXPORT void WINAPI CancelThreadpoolIo(PTP_IO p)
{
    struct tp_io_obj *io = io_of(p);
    uint32_t n = io ? __atomic_load_n(&io->expected, __ATOMIC_RELAXED) : 0;
    while (n && !__atomic_compare_exchange_n(&io->expected, &n, n - 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        ;
}

/* pending callbacks dropped (cancel, cleanup group): their packets go too */
static void io_drop_packets(struct tp_io_obj *io, uint32_t n)
{
    struct io_entry e;
    for (; n && io_port_take_entry(H32(io->port), &e); n--) CancelThreadpoolIo((PTP_IO)io);
}

NSPA_EXPORT void WINAPI WaitForThreadpoolIoCallbacks(PTP_IO p, BOOL cancel)
{
    struct tp_io_obj *io = io_of(p);
    if (!io) return;
    if (cancel) io_drop_packets(io, tp_cancel_pending(&io->o));
    tp_wait_callbacks(&io->o, 0);
}

NSPA_EXPORT void WINAPI CloseThreadpoolIo(PTP_IO p)
{
    struct tp_io_obj *io = io_of(p);
    if (!io) return;
    tp_group_remove(&io->o);
    tp_obj_close(&io->o, NULL);
}

/* ---- BindIoCompletionCallback ------------------------------------------------------ */

static HANDLE bind_port;
static struct tp_obj bind_obj;
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

static void bind_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    struct io_entry e;
    if (!io_port_take_entry(H32(bind_port), &e)) return;
    DWORD err = e.internal ? win32_error_from_status((NTSTATUS)e.internal, WIN32_ERR_IO) : NO_ERROR;
    ((LPOVERLAPPED_COMPLETION_ROUTINE)e.key)(err, e.bytes, e.ov);
}

static void bind_init(void)
{
    bind_port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    if (!bind_port) return;
    bind_obj.invoke = bind_invoke;
    bind_obj.kind = TPK_LEGACY;          /* never a PTP_IO */
    tp_obj_init(&bind_obj, tp_default_pool(), 1, 0);
    io_port_set_notify(H32(bind_port), io_posted, &bind_obj);
}

NSPA_EXPORT BOOL WINAPI BindIoCompletionCallback(HANDLE file, LPOVERLAPPED_COMPLETION_ROUTINE fn, ULONG flags)
{
    if (!fn) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    /* a handle for synchronous I/O cannot be bound (Windows: STATUS_INVALID_PARAMETER
     * from the completion information; Wine's test_iocp_callback checks it) */
    int ov = io_is_overlapped(H32(file));
    if (ov <= 0) {
        SetLastError(ov == 0 ? ERROR_INVALID_PARAMETER : ERROR_INVALID_HANDLE);
        return FALSE;
    }
    pthread_once(&bind_once, bind_init);
    if (!bind_port) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return FALSE;
    }
    /* the routine is the key: one port serves every bound file */
    return CreateIoCompletionPort(file, bind_port, (ULONG_PTR)fn, 0) != NULL;
}
