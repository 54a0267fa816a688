/* Bad input gets its documented error, never a crash and never a changed object:
 * closed, garbage and wrong-type handles, NULL pointers, bad counts and owners (a wait's
 * owner 0 and an alert of any type are valid, as in ntsync: sync_ntsync_answers.c). */
#include "sync_util.h"

int main(void)
{
    nspa_obj_t s = mk_sem(1, 2), m = mk_mutex(0, 0), e = mk_event(0, 1);
    nspa_obj_t closed = mk_sem(0, 1);
    CHECK_EQ(nspa_close(closed), 0);
    CHECK_EQ(nspa_close(closed), -EBADF);        /* double close */
    const nspa_obj_t garbage[] = { 0, 1, 2, 3, 5, 0xfffffffc, 0x7ffffff0, closed, 0xdeadbeef };
    uint32_t n;
    struct nspa_sem_args sa;
    struct nspa_mutex_args ma;
    struct nspa_event_args ea;
    for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
        nspa_obj_t g = garbage[i];
        n = 1;
        CHECK_EQ(nspa_sem_release(g, &n), -EBADF);
        ma = (struct nspa_mutex_args){ 1, 0 };
        CHECK_EQ(nspa_mutex_unlock(g, &ma), -EBADF);
        CHECK_EQ(nspa_mutex_kill(g, 1), -EBADF);
        CHECK_EQ(nspa_event_set(g, NULL), -EBADF);
        CHECK_EQ(nspa_event_reset(g, NULL), -EBADF);
        CHECK_EQ(nspa_event_pulse(g, NULL), -EBADF);
        CHECK_EQ(nspa_sem_read(g, &sa), -EBADF);
        CHECK_EQ(nspa_mutex_read(g, &ma), -EBADF);
        CHECK_EQ(nspa_event_read(g, &ea), -EBADF);
        CHECK_EQ(nspa_close(g), -EBADF);
        nspa_obj_t d;
        CHECK_EQ(nspa_dup(g, &d), -EBADF);
        CHECK_EQ(nspa_obj_type(g), -EBADF);
        nspa_obj_t objs[2] = { s, g };
        CHECK_EQ(wait_any_ms(objs, 2, 1, 0, 0, NULL), -EBADF);
        CHECK_EQ(wait_all_ms(objs, 2, 1, 0, 0, NULL), -EBADF);
        CHECK_EQ(wait_any_ms(&s, 1, 1, 0, g ? g : 4000, NULL), -EBADF);   /* bad alert */
        CHECK_EQ(sem_count(s), 1);            /* the good object was not consumed */
    }
    /* wrong type: EINVAL, object unchanged */
    n = 1;
    CHECK_EQ(nspa_sem_release(e, &n), -EINVAL);
    CHECK_EQ(nspa_sem_release(m, &n), -EINVAL);
    ma = (struct nspa_mutex_args){ 1, 0 };
    CHECK_EQ(nspa_mutex_unlock(s, &ma), -EINVAL);
    CHECK_EQ(nspa_mutex_kill(e, 1), -EINVAL);
    CHECK_EQ(nspa_event_set(s, NULL), -EINVAL);
    CHECK_EQ(nspa_event_reset(m, NULL), -EINVAL);
    CHECK_EQ(nspa_event_pulse(s, NULL), -EINVAL);
    CHECK_EQ(nspa_sem_read(e, &sa), -EINVAL);
    CHECK_EQ(nspa_mutex_read(s, &ma), -EINVAL);
    CHECK_EQ(nspa_event_read(m, &ea), -EINVAL);
    CHECK_EQ(sem_count(s), 1);
    CHECK_EQ(event_signaled(e), 1);
    /* NULL pointers */
    CHECK_EQ(nspa_sem_release(s, NULL), -EFAULT);
    CHECK_EQ(nspa_mutex_unlock(m, NULL), -EFAULT);
    CHECK_EQ(nspa_sem_read(s, NULL), -EFAULT);
    CHECK_EQ(nspa_mutex_read(m, NULL), -EFAULT);
    CHECK_EQ(nspa_event_read(e, NULL), -EFAULT);
    CHECK_EQ(nspa_create_sem(NULL, NULL, &n), -EFAULT);
    CHECK_EQ(nspa_create_mutex(&ma, NULL, NULL), -EFAULT);
    CHECK_EQ(nspa_create_event(NULL, NULL, NULL), -EFAULT);
    CHECK_EQ(nspa_wait_any(NULL), -EFAULT);
    CHECK_EQ(nspa_wait_all(NULL), -EFAULT);
    CHECK_EQ(wait_any_ms(NULL, 2, 1, 0, 0, NULL), -EFAULT);
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, NULL, &n), -EFAULT);
    CHECK_EQ(nspa_dup(s, NULL), -EFAULT);
    CHECK_EQ(nspa_set_namespace(NULL), -EINVAL);
    /* counts, owners, flags */
    nspa_obj_t many[65];
    for (int i = 0; i < 65; i++) many[i] = s;
    CHECK_EQ(wait_any_ms(many, 65, 1, 0, 0, NULL), -EINVAL);
    CHECK_EQ(wait_all_ms(many, 65, 1, 0, 0, NULL), -EINVAL);
    nspa_obj_t d2[2] = { s, s };
    CHECK_EQ(wait_all_ms(d2, 2, 1, 0, 0, NULL), -EINVAL);              /* duplicates */
    CHECK_EQ(sem_count(s), 1);
    struct nspa_wait_args wa = { .timeout = 0, .objs = &s, .count = 1, .owner = 1, .pad = 1 };
    CHECK_EQ(nspa_wait_any(&wa), -EINVAL);
    n = 2;
    CHECK_EQ(nspa_sem_release(s, &n), -EOVERFLOW);                     /* overflowing release */
    CHECK_EQ(sem_count(s), 1);
    ma = (struct nspa_mutex_args){ 0, 0 };
    CHECK_EQ(nspa_mutex_unlock(m, &ma), -EINVAL);                      /* owner 0 */
    CHECK_EQ(nspa_mutex_kill(m, 0), -EINVAL);
    ma = (struct nspa_mutex_args){ 5, 0 };
    CHECK_EQ(nspa_mutex_unlock(m, &ma), -EPERM);                       /* not owner */
    /* bad names */
    char longname[NSPA_MAX_NAME + 2];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    struct nspa_event_args eargs = { 0, 0 };
    nspa_obj_t h;
    CHECK_EQ(nspa_create_event(&eargs, longname, &h), -EINVAL);
    CHECK_EQ(nspa_create_event(&eargs, "", &h), -EINVAL);
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "", &h), -EINVAL);
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "no-such-object", &h), -ENOENT);
    /* still fine afterwards */
    CHECK_EQ(wait_any_ms(&s, 1, 1, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&e, 1, 1, 0, 0, NULL), 0);
    return nspa_test_done();
}
