# common/ helpers compiled into their tests (hidden in libnspa)
nspa_add_test(common_slots SOURCES tests/common_slots.c)
