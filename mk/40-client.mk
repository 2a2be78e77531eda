# mk/40-client.mk: libtempo (federate/libtempo/, public header federate/libtempo/tempo.h), the
# example federates, their tests and the foundation benchmarks. See the Makefile header for
# the variables this fragment fills in; doc/api.md and doc/guide.md document the library.
CLIENT_SRCS += federate/libtempo/client_err.c federate/libtempo/client_conn.c federate/libtempo/client_evoke.c \
               federate/libtempo/client_join.c federate/libtempo/client_dm.c federate/libtempo/client_om.c \
               federate/libtempo/client_sync.c federate/libtempo/client_time.c federate/libtempo/client_value.c \
               federate/libtempo/client_ticks.c federate/libtempo/client_secret.c \
               federate/libtempo/client_inproc.c federate/libtempo/client_ckpt.c

# Example federates (examples/, walked through in doc/guide.md; examples/demo.sh runs them).
PROGS += tempo-example-producer tempo-example-consumer
tempo-example-producer_SRCS := examples/producer.c
tempo-example-producer_LIBS := client proto fom
tempo-example-consumer_SRCS := examples/consumer.c
tempo-example-consumer_LIBS := client proto fom

# Unit tests: no RTI process (client_conn_test scripts a fake RTI on a Unix socket).
UNIT_TESTS += tests/unit/client_value_test tests/unit/client_conn_test \
              tests/unit/client_bound_test
client_value_test_LIBS := client proto fom
client_conn_test_LIBS := client proto fom
client_bound_test_LIBS := client proto fom

# Integration tests: a real bin/tempo-rti on an ephemeral port
# (started and always stopped by tests/integration/rti_proc.h, through client_harness.h).
INTEG_TESTS += tests/integration/client_pubsub_test tests/integration/client_sync_test \
               tests/integration/client_kill_test tests/integration/client_time_test \
               tests/integration/client_fed_test
client_pubsub_test_LIBS := client proto fom
client_sync_test_LIBS := client proto fom
client_kill_test_LIBS := client proto fom
client_time_test_LIBS := client proto fom
client_fed_test_LIBS := client proto fom
# Checkpoints over the real RTI, TCP and in process (doc/checkpoint.md).
INTEG_TESTS += tests/integration/ckpt_rti_test
ckpt_rti_test_LIBS := client proto fom
CHECK_TESTS += tests/integration/client_pubsub_test tests/integration/client_sync_test \
               tests/integration/client_kill_test tests/integration/client_time_test \
               tests/integration/client_fed_test
# The RTI liveness deadline: a stopped RTI ends every blocking call (doc/api.md "Liveness").
INTEG_TESTS += tests/integration/client_liveness_test
client_liveness_test_LIBS := client proto fom
# A late regulator's refused update reaches the program; stalls under polling over the wire.
INTEG_TESTS += tests/integration/client_late_test
client_late_test_LIBS := client proto fom
# The example pair through examples/demo.sh (what doc/guide.md promises the reader sees).
INTEG_SCRIPTS += tests/integration/client_demo.sh
CHECK_TESTS += tests/integration/client_demo.sh
# The example of doc/api.md, compiled from the page and run beside the producer.
INTEG_SCRIPTS += tests/integration/api_example.sh

# Benchmarks (make bench): figures only, never pass/fail on timing.
BENCHES += tests/bench/bench_foundation tests/bench/bench_client_alloc
bench_foundation_LIBS := client proto fom
bench_client_alloc_LIBS := client proto fom
# The in-process transport (doc/inproc.md): the same federation in process and over TCP against
# a closed recursion, the embedded RTI's federation log, stopping under a joined federate.
INTEG_TESTS += tests/integration/inproc_client_test
inproc_client_test_LIBS := client flog tm proto fom
CHECK_TESTS += tests/integration/inproc_client_test
