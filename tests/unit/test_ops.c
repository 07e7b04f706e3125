/*
 * Every backend built in fills every op: unsupported ones are STENCIL_ENOSYS stubs, never NULL
 * holes (the skeleton calls ops without checking).
 */
#include <check.h>
#include <stdlib.h>

#include "backend.h"

START_TEST(no_null_ops)
{
    for (int i = 0; sb_backends[i]; i++) {
        const sb_ops *o = sb_backends[i];
        ck_assert_ptr_nonnull(o->name);
        const void *ops[] = {
            (const void *)o->open,       (const void *)o->close,      (const void *)o->mem_alloc,
            (const void *)o->mem_free,   (const void *)o->host_alloc, (const void *)o->host_free,
            (const void *)o->write,      (const void *)o->read,       (const void *)o->update,
            (const void *)o->copy_out,   (const void *)o->copy_in,    (const void *)o->flush,
            (const void *)o->wait,       (const void *)o->join,       (const void *)o->busy,
            (const void *)o->ipc_export, (const void *)o->ipc_open,   (const void *)o->ipc_close,
            (const void *)o->copy_peer,  (const void *)o->stamp,      (const void *)o->stamp_read,
            (const void *)o->norm,       (const void *)o->fuse_depth, (const void *)o->after,
        };
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            ck_assert_msg(ops[k] != NULL, "backend %s: op %zu is NULL", o->name, k);
        ck_assert_ptr_eq(sb_find(o->name), o);
    }
    ck_assert_ptr_null(sb_find("no-such-backend"));
}
END_TEST

/* "auto" tries the backends that ask for it, in table order, then the host. */
START_TEST(auto_order)
{
    int n = 0, want = 0;
    for (int i = 0; sb_backends[i]; i++) want += sb_backends[i]->auto_try;
    while (sb_auto(n)) n++;
    ck_assert_int_eq(n, want + 1);
    ck_assert_ptr_eq(sb_auto(n - 1), sb_find("host"));
    for (int i = 0; i + 1 < n; i++) ck_assert_int_eq(sb_auto(i)->auto_try, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ops");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, no_null_ops);
    tcase_add_test(tc, auto_order);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
