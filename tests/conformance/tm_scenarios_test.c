/* Conformance scenario tables for the time management engine rti/tm/tm.c (doc/time.md,
 * normative; doc/contributing.md §12). One row per scenario: an id tm-N.M, the §5 rule it checks,
 * the topology in a comment, and a script (syntax: tests/conformance/tm_script.h). Every
 * expectation was worked out by hand from the §5 tables, not copied from the engine.
 * Read tests/conformance/tm_random_test.c next (randomized runs against a reference model). */
#include "tests/conformance/tm_script.h"

struct scenario {
    const char *id;   /* tm-N.M */
    const char *rule; /* the doc/time.md row or clarification checked */
    const char *text; /* the script */
};

static const struct scenario scenarios[] = {
    /* ---- tm-1: TAR ------------------------------------------------------------------ */
    /* A <-> B, both regulating and constrained, L = 1 */
    {"tm-1.1", "bound row 'TAR(R) pending: R + L'; grant row TAR: GALT > t",
     "join A B; rc A 1; rc B 1;"
     "A tar 1; expect; galt A 1n; holder A B; pending A tar 1;"
     "B tar 1; expect G A 1, G B 1; galt A 2n; bound A 2n; time B 1"},
    /* A <-> B, L = 0: the bound after a TAR grant is strict */
    {"tm-1.2", "bound rows 'TAR(R) pending, L = 0: strict' and 'T strict after TAR grant'",
     "join A B; rc A 0; rc B 0;"
     "A tar 1; expect; bound A 1s; galt A 0n;"
     "B tar 1; expect G A 1, G B 1; bound A 1s;"
     "A send 1 B !EBOUND; errmsg below its bound; A send 2 B; expect;"
     "B tar 2; A tar 2; expect G A 2, D B m1@2, G B 2"},
    /* A -> B, L = 1: TAR(t) delivers only ts <= t, in time-stamp order */
    {"tm-1.3", "grant row TAR: all TSO with ts <= t delivered before the grant",
     "join A B; rc A 1; rc B 1;"
     "A send 3 B; A send 1 B; lits B 1;"
     "B tar 2; A tar 2; expect G A 2, D B m2@1, G B 2; lits B 3;"
     "B tar 3; A tar 3; expect G A 3, D B m1@3, G B 3; lits B inf"},
    /* A, B wait; C idle holds their GALT; L = 0 */
    {"tm-1.4", "GALT_f = min over the other regulating federates; who holds it",
     "join A B C; rc A 0; rc B 0; rc C 0;"
     "A tar 5; B tar 5; expect; holder A C; galt A 0n; pending A tar 5;"
     "C tar 3; expect G C 3; reason held by A; galt A 3s; holder A C; holder C A;"
     "C tar 5; expect G A 5, G B 5, G C 5"},
    /* A <-> B, L = 0: refused requests change nothing */
    {"tm-1.5", "errors: request below T, second request while pending, unknown federate",
     "join A B; rc A 0; rc B 0;"
     "A tar 2; B tar 2; expect G A 2, G B 2;"
     "A tar 1 !ETIME; errmsg below its logical time 2;"
     "A tar 4; A tar 5 !EPENDING; errmsg TAR(4) pending;"
     "pending A tar 4; time A 2;"
     "B tar 4; expect G A 4, G B 4;"
     "Z tar 1 !EUNKNOWN; errmsg unknown federate; A nera 3 !ETIME"},
    /* A <-> B, L = 0 */
    {"tm-1.6", "further rules: TAR(T) at the current T is legal",
     "join A B; rc A 0; rc B 0;"
     "A tar 0; expect; B tar 0; expect G A 0, G B 0; time A 0"},
    /* A -> B, L = 0: a send while TAR(5) is pending is checked against (5, strict) */
    {"tm-1.7", "clarification: a send while a request is pending uses the pending bound",
     "join A B; rc A 0; rc B 0;"
     "A tar 5; A send 3 B !EBOUND; errmsg TAR pending; A send 5 B !EBOUND;"
     "A send 6 B; expect; lits B 6"},

    /* ---- tm-2: TARA ----------------------------------------------------------------- */
    /* Jacobi (the Awais thesis §4.2.1): A <-> B, L = 0, exchanges at instant 1, TAR(1) closes it */
    {"tm-2.1", "grant row TARA: GALT >= t, later messages stamped t at once; TAR(t) closes",
     "join A B; rc A 0; rc B 0;"
     "A tara 1; expect; B tara 1; expect G A 1, G B 1;"
     "A send 1 B; expect D B m1@1; B send 1 A; expect D A m2@1;"
     "A tara 1; expect G A 1; B tara 1; expect G B 1;"
     "A send 1 B; expect D B m3@1;"
     "A tar 1; expect; B send 1 A; expect; lits A 1;"
     "B tar 1; expect D A m4@1, G A 1, G B 1;"
     "A send 1 B !EBOUND; B tara 2; A tara 2; expect G A 2, G B 2"},
    /* A <-> B, L = 2 */
    {"tm-2.2", "bound row 'TARA(R) pending: R + L non-strict', L > 0",
     "join A B; rc A 2; rc B 2;"
     "A tara 3; expect; galt A 2n; bound A 5n;"
     "B tara 3; expect G A 3, G B 3; bound A 5n"},
    /* A -> B, L = 0: a message stamped t waits in the queue and comes before TAG(t) */
    {"tm-2.3", "grant row TARA: all TSO with ts <= t delivered before the grant",
     "join A B; rc A 0; rc B 0;"
     "A send 1 B; B tara 1; expect; A tara 1; expect G A 1, D B m1@1, G B 1"},
    /* A TAR(1) pending, B TARA(1), L = 0 */
    {"tm-2.4", "TAR needs GALT > t where TARA needs GALT >= t",
     "join A B; rc A 0; rc B 0;"
     "A tar 1; B tara 1; expect G B 1; galt A 1n; galt B 1s;"
     "B send 1 A; expect; B tar 1; expect D A m1@1, G A 1, G B 1"},
    /* A <-> B, L = 0 */
    {"tm-2.5", "clarification: a promise is never withdrawn (TARA(T) after TAR(T))",
     "join A B; rc A 0; rc B 0;"
     "A tar 1; B tar 1; expect G A 1, G B 1;"
     "A tara 1; expect G A 1; bound A 1s; A send 1 B !EBOUND; A send 2 B; expect"},
    /* master A, slaves B and C iterate at instant 1 (the Awais thesis ch. 5), L = 0 */
    {"tm-2.6", "TARA(t) repeated by three federates, then TAR(t) by all closes the instant",
     "join A B C; rc A 0; rc B 0; rc C 0;"
     "A tara 1; B tara 1; C tara 1; expect G A 1, G B 1, G C 1;"
     "A send 1 B C; expect D B m1@1, D C m1@1;"
     "B send 1 A; C send 1 A; expect D A m2@1, D A m3@1;"
     "A tara 1; B tara 1; C tara 1; expect G A 1, G B 1, G C 1;"
     "A send 1 B C; expect D B m4@1, D C m4@1;"
     "B tar 1; C tar 1; expect; A tar 1; expect G A 1, G B 1, G C 1"},
    /* A -> B, L = 0: TARA(5) pending allows sends at 5 */
    {"tm-2.7", "clarification: pending TARA(R) bound is (R, non-strict)",
     "join A B; rc A 0; rc B 0;"
     "A tara 5; A send 4 B !EBOUND; A send 5 B; expect; bound A 5n"},

    /* ---- tm-3: NER ------------------------------------------------------------------ */
    /* A NER(10) against B's TARs, L = 1 */
    {"tm-3.1", "bound row NER: m + L with m = min(R, LITS, GALT); grant row NER, none <= t",
     "join A B; rc A 1; rc B 1;"
     "A ner 10; expect; bound A 2n; galt A 1n;"
     "B tar 5; expect G B 5; bound A 7n;"
     "B tar 20; expect G A 10; pending B tar 20; galt B 11n"},
    /* A, B (L = 1) -> C (constrained only) */
    {"tm-3.2", "grant row NER: all TSO with the smallest queued ts; tie rule",
     "join A B C; rc A 1; rc B 1; con C; expect CE C 0;"
     "A send 5 C; B send 5 C; A send 5 C; B send 7 C; lits C 5;"
     "C ner 10; expect; A tar 10; expect; B tar 10;"
     "expect G A 10, G B 10, D C m1@5, D C m3@5, D C m2@5, G C 5;"
     "C ner 10; expect D C m4@7, G C 7"},
    /* A NER(5), B NER(8), L = 0: neither deadlock nor an early grant */
    {"tm-3.3", "clarification: greatest fixed point; two NER federates at zero lookahead",
     "join A B; rc A 0; rc B 0;"
     "A ner 5; B ner 8; expect G A 5; bound B 5s; galt B 5s; holder B A;"
     "A ner 8; expect G A 8, G B 8"},
    /* C -> B (message at 3); A and B NER(10); L = 0 everywhere:
     *      C --m@3--> B ~~NER~~ A        A must not pass 3 before B has its message */
    {"tm-3.4", "NER chain: A waits on B, which waits on C's message",
     "join A B C; rc A 0; rc B 0; rc C 0;"
     "C send 3 B; A ner 10; B ner 10; expect;"
     "C tar 2; expect G C 2; galt A 2s; holder A C;"
     "C tar 20; expect D B m1@3, G B 3; galt A 3s; holder A B; root A B; pending A ner 10;"
     "B ner 10; expect G A 10, G B 10; holder C A"},
    /* A NER(10), B NER(10), L = 2 */
    {"tm-3.5", "bound row NER with L > 0: both granted their requested time",
     "join A B; rc A 2; rc B 2;"
     "A ner 10; expect; bound A 4n; B ner 10; expect G A 10, G B 10; bound A 12n"},
    /* A (L = 1) -> B: message at 7 beyond NER(5) */
    {"tm-3.6", "grant row NER: with none <= t, TAG(t); the message waits for the next NER",
     "join A B; rc A 1; rc B 1;"
     "A send 7 B; B ner 5; A tar 10; expect G B 5; lits B 7;"
     "B ner 8; expect D B m1@7, G B 7;"
     "B ner 20; expect G A 10"},
    /* A <-> B, L = 0: a message stamped T makes NER grant the current time */
    {"tm-3.7", "grant row NER: the smallest queued ts may equal the current time",
     "join A B; rc A 0; rc B 0;"
     "A tara 1; B tara 1; expect G A 1, G B 1;"
     "B ner 5; expect; A send 1 B; expect; lits B 1;"
     "A tar 1; expect G A 1, D B m1@1, G B 1; time B 1"},
    /* A NER(10) pending with B idle, L = 0 */
    {"tm-3.8", "clarification: a send while NER is pending uses the NER bound",
     "join A B; rc A 0; rc B 0;"
     "A ner 10; bound A 0s; A send 0 B !EBOUND; A send 1 B; expect; lits B 1"},

    /* ---- tm-4: NERA ----------------------------------------------------------------- */
    /* discrete-event Jacobi (the Awais thesis §4.2.2): A predicts 7, B predicts 4, L = 0 */
    {"tm-4.1", "grant row NERA: the smaller prediction is granted to everyone",
     "join A B; rc A 0; rc B 0;"
     "A nera 7; B nera 4; expect G B 4; galt A 4n; holder A B;"
     "B send 4 A; expect D A m1@4, G A 4;"
     "A send 4 B; expect D B m2@4;"
     "B ner 8; expect; A ner 8; expect G A 8, G B 8"},
    /* A NERA(3), B NERA(5), L = 1 */
    {"tm-4.2", "bound row NERA with L > 0",
     "join A B; rc A 1; rc B 1;"
     "A nera 3; expect; bound A 2n; B nera 5; expect G A 3; galt B 4n; bound B 5n"},
    /* A, B, C NERA(5), L = 0 */
    {"tm-4.3", "NERA chains of three at zero lookahead: all granted together",
     "join A B C; rc A 0; rc B 0; rc C 0;"
     "C nera 5; B nera 5; expect; A nera 5; expect G A 5, G B 5, G C 5; bound A 5n"},
    /* A <-> B, L = 0: NERA(T) repeated at one instant, then NER closes it */
    {"tm-4.4", "NERA repeated at T like TARA; NER(T) closes the instant",
     "join A B; rc A 0; rc B 0;"
     "A nera 3; B nera 3; expect G A 3, G B 3;"
     "A send 3 B; expect D B m1@3;"
     "B nera 3; expect G B 3; A ner 3; expect; B send 3 A; expect;"
     "B ner 9; expect D A m2@3, G A 3; A ner 9; expect G A 9, G B 9"},

    /* ---- tm-5: FQR ------------------------------------------------------------------ */
    /* A (L = 1) -> B (constrained only) */
    {"tm-5.1", "grant row FQR: every queued message, even beyond t; max(T, min(t, GALT))",
     "join A B; rc A 1; con B; expect CE B 0;"
     "A send 3 B; A send 9 B; B fqr 2; expect D B m1@3, D B m2@9, G B 1; time B 1"},
    /* A (L = 1) ahead at 10, B constrained only */
    {"tm-5.2", "grant row FQR: the grant is min(t, time of GALT)",
     "join A B; rc A 1; con B; expect CE B 0;"
     "A tar 10; expect G A 10; B fqr 4; expect G B 4; B fqr 30; expect G B 11"},
    /* A <-> B all FQR at L = 0 */
    {"tm-5.3", "clarification: all-FQR at zero lookahead exchanges but does not advance",
     "join A B; rc A 0; rc B 0;"
     "A fqr 5; expect G A 0; B fqr 5; expect G B 0; bound A 0s;"
     "A send 0 B !EBOUND; A send 1 B; expect;"
     "B fqr 5; expect D B m1@1, G B 0; time B 0;"
     "A tar 1; B tar 1; expect G A 1, G B 1"},
    /* B neither regulating nor constrained */
    {"tm-5.4", "clarification: a federate that is not constrained is granted at once",
     "join A B; rc A 0; B fqr 7; expect G B 7; B ner 9; expect G B 9"},
    /* Gauss-Seidel (the Awais thesis §4.3): source A, sink B, L = 0; B's update then its
     * "step forward" token, both stamped 1, reach A in send order */
    {"tm-5.5", "FQR flush at the sink; equal time stamps from one sender keep send order",
     "join A B; rc A 0; rc B 0;"
     "A send 1 B; B fqr 1; expect D B m1@1, G B 0;"
     "B send 1 A; B send 1 A; A tar 1; expect; lits A 1;"
     "B tar 1; expect D A m2@1, D A m3@1, G A 1, G B 1"},

    /* A and B regulating and constrained, L = 2; B flushes with FQR */
    {"tm-5.6", "FQR by a regulating federate with L > 0: grant min(t, GALT), bound g + L",
     "join A B; rc A 2; rc B 2;"
     "A send 5 B; B fqr 9; expect D B m1@5, G B 2; bound B 4n; galt A 4n;"
     "A tar 3; expect G A 3; B send 3 A !EBOUND; B send 4 A; expect"},

    /* ---- tm-6: enabling and disabling ----------------------------------------------- */
    /* A regulating; B constrained joins regulation at 5 */
    {"tm-6.1", "clarification: enabling regulation mid-run starts at max(T + L, promises)",
     "join A B; rc A 0; con B; expect CE B 0;"
     "A tar 5; B tar 5; expect G A 5, G B 5;"
     "reg B 0; expect RE B 5; bound B 5s; reason promise (5, strict);"
     "B send 5 A !EBOUND; B send 6 A; expect"},
    /* late joiner C enables regulation while A, B are at 10 */
    {"tm-6.2", "clarification: a late regulator cannot send into a constrained past",
     "join A B; rc A 1; con B; expect CE B 0;"
     "A tar 10; B tar 10; expect G A 10, G B 10;"
     "join C; reg C 1; expect RE C 0; bound C 10s; time C 0;"
     "C send 5 A !EBOUND; A tar 20; expect; holder A C;"
     "C tar 20; expect G A 20, G C 20"},
    /* B at 10 asks to become constrained while A (L = 0) is at 0 */
    {"tm-6.3", "clarification: enabling constrained completes once GALT >= T; RO until then",
     "join A B; rc A 0; B tar 10; expect G B 10;"
     "con B; expect; pending B none; A send 7 B; expect R B m1@7;"
     "B tar 12 !EPENDING; errmsg still enabling;"
     "A tar 10; expect G A 10, CE B 10;"
     "A send 10 B !EBOUND; A send 11 B; expect;"
     "B tar 12; A tar 12; expect G A 12, D B m2@11, G B 12"},
    /* one federate, and A, B with B waiting */
    {"tm-6.4", "errors: enabling twice, disabling when not enabled, negative lookahead",
     "join A; reg A -1 !ELOOKAHEAD; errmsg negative lookahead; reg A 0;"
     "reg A 1 !EENABLED; errmsg already time-regulating;"
     "con A; con A !EENABLED; uncon A; uncon A !ENOTENABLED;"
     "unreg A; unreg A !ENOTENABLED; la A 1 !ENOTENABLED; join A !EEXISTS;"
     "expect RE A 0, CE A 0;"
     "join B; con B; expect CE B 0; reg A 0; expect RE A 0; B tar 5; expect;"
     "reg B 0 !EPENDING; con B !EENABLED; errmsg already time-constrained"},
    /* A, B L = 5; A lowers its lookahead to 1 */
    {"tm-6.5", "modify lookahead: the bound never goes down, a smaller L acts as T advances",
     "join A B; rc A 5; rc B 5;"
     "la A 1; bound A 5n; la A -1 !ELOOKAHEAD;"
     "A tar 2; bound A 5n; B tar 2; expect G A 2, G B 2;"
     "A tar 5; expect G A 5; bound A 6n"},
    /* A regulating (L = 0) stops regulating while B waits on it */
    {"tm-6.6", "disabling regulation removes the bound; waiting federates advance",
     "join A B; rc A 0; rc B 0; B tar 5; expect; unreg A; expect G B 5; galt B inf"},

    /* ---- tm-7: resigning ------------------------------------------------------------ */
    /* A idle, B waits on A; A has a message queued */
    {"tm-7.1", "resign: queued messages reported, those waiting on it are granted",
     "join A B; rc A 1; rc B 1;"
     "B send 3 A; B tar 5; expect; holder B A;"
     "resign A; expect X A m1@3, G B 5; galt B inf; resign A !EUNKNOWN"},
    /* A NER(10), C TAR(20), B idle resigns; L = 0 */
    {"tm-7.2", "resign of an idle federate releases a NER federate",
     "join A B C; rc A 0; rc B 0; rc C 0;"
     "A ner 10; C tar 20; expect; resign B; expect G A 10; holder C A"},
    /* A -> B, then A resigns */
    {"tm-7.3", "messages sent before a resign are still delivered",
     "join A B; rc A 0; rc B 0; A send 2 B; resign A; expect;"
     "B tar 5; expect D B m1@2, G B 5"},

    /* ---- tm-8: receive order -------------------------------------------------------- */
    {"tm-8.1", "RO: a non-regulating sender's messages are delivered at once",
     "join A B; con A; con B; expect CE A 0, CE B 0;"
     "A send 5 B; expect R B m1@5; A ro B; expect R B m2"},
    {"tm-8.2", "RO: a non-constrained receiver gets TSO messages at once as RO",
     "join A B; rc A 0; reg B 0; expect RE B 0; A send 3 B; expect R B m1@3"},
    {"tm-8.3", "RO: a send without a time stamp is receive order",
     "join A B; rc A 0; rc B 0; A ro B; expect R B m1"},
    /* B constrained with a queued message and TAR(5) pending, then stops being constrained */
    {"tm-8.4", "disabling constrained: queue delivered as RO, the request granted at once",
     "join A B; rc A 0; rc B 0; A send 3 B; B tar 5; expect;"
     "uncon B; expect R B m1@3, G B 5"},
    /* A -> {B constrained, C not constrained} */
    {"tm-8.5", "one send, two receivers: TSO for the constrained, RO for the other",
     "join A B C; rc A 0; rc B 0; reg C 0; expect RE C 0;"
     "A send 1 B C; expect R C m1@1; B tar 1; C tar 1; expect G C 1;"
     "A tar 1; expect G A 1, D B m1@1, G B 1; A send 2 B B !EINVAL"},

    /* ---- tm-9: tie rule ------------------------------------------------------------- */
    /* B, C -> A, all stamped 5 (and one 4) */
    {"tm-9.1", "further rules: ties by sender handle, then send sequence",
     "join A B C; con A; expect CE A 0; rc B 0; rc C 0;"
     "C send 5 A; B send 5 A; C send 5 A; B send 5 A; B send 4 A;"
     "A tar 5; B tar 5; C tar 5;"
     "expect D A m5@4, D A m2@5, D A m4@5, D A m1@5, D A m3@5, G A 5, G B 5, G C 5"},
    {"tm-9.2", "further rules: equal time stamps from one sender keep their send order",
     "join A B; rc A 0; rc B 0; A send 1 B; A send 1 B; A send 1 B;"
     "B tar 1; A tar 1; expect G A 1, D B m1@1, D B m2@1, D B m3@1, G B 1"},

    /* ---- tm-10: four federates ------------------------------------------------------ */
    /* A TAR(4), B TARA(4), C NER(6), D NERA(3), L = 0 everywhere */
    {"tm-10.1", "all services together: grants in the order the tables prescribe",
     "join A B C D; rc A 0; rc B 0; rc C 0; rc D 0;"
     "A tar 4; B tara 4; C ner 6; D nera 3; expect G D 3;"
     "bound C 3s; galt C 3n; holder C D;"
     "D tar 10; expect G B 4; B tar 4; expect G A 4, G B 4;"
     "A tar 8; B tar 8; expect G C 6"},
    /* A, B, C, D with L = 0, 1, 2, 3; ring of messages */
    {"tm-10.2", "mixed lookaheads: bounds T + L, GALT = min of the others",
     "join A B C D; rc A 0; rc B 1; rc C 2; rc D 3;"
     "galt A 1n; galt B 0n; galt D 0n;"
     "B send 1 A; C send 2 B; D send 3 C; A send 0 D; expect D D m4@0;"
     "A tar 2; B tar 2; expect; C tar 2; expect D A m1@1, G A 2, D B m2@2, G B 2, G C 2;"
     "D tar 2; expect G D 2; lits C 3"},

    /* ---- tm-12: promises are cumulative (doc/time.md) -------------------------------- */
    /* A constrained only; B regulating only (L = 0), granted at once; C regulates late */
    {"tm-12.1",
     "bound rule 'enabling regulation mid-run': the promise after TAR(T) then TARA(T) "
     "is (T, strict), the greatest one made",
     "join A B C; con A; expect CE A 0; reg B 0; expect RE B 0;"
     "B tar 5; expect G B 5; A tar 5; expect G A 5; A tara 5; expect G A 5;"
     "reg C 0; expect RE C 0; bound C 5s; reason promise (5, strict) to A;"
     "C send 5 A !EBOUND; C send 6 A; expect; lits A 6"},
    {"tm-12.2", "bound rule 'enabling regulation mid-run': TAR(T) then NERA(T) keeps (T, strict)",
     "join A B C; con A; expect CE A 0; reg B 0; expect RE B 0;"
     "B tar 5; expect G B 5; A tar 5; expect G A 5; A nera 5; expect G A 5;"
     "reg C 0; expect RE C 0; bound C 5s; C send 5 A !EBOUND; C send 6 A; expect; lits A 6"},
    /* A, C, D, E regulating and constrained with L = 2, 3, 2, 3; B neither, at 8, then
     * regulating with L = 3. Before the fix B started at (19, non-strict) and held A's
     * NER(19) although nothing stamped 19 may reach A after its TAR(19). */
    {"tm-12.3",
     "grant row NER with a late regulator: B starts at A's promise (19, strict), so "
     "A's NER(19) is granted at once",
     "join A B C D E; rc A 2; rc C 3; rc D 2; rc E 3;"
     "B tar 8; expect G B 8;"
     "A tar 19; C tar 17; D tar 18; E tar 17; expect G A 19, G C 17, G D 18, G E 17;"
     "A nera 19; expect G A 19;"
     "reg B 3; expect RE B 8; bound B 19s;"
     "C send 20 A; expect; lits A 20;"
     "A ner 19; expect G A 19; time A 19; lits A 20"},
    /* as tm-12.1 with lookaheads: B L = 2, the late C L = 1 (its own T + L is only (1, ns)) */
    {"tm-12.4", "enabling regulation mid-run with L > 0: max(T + L, cumulative promise)",
     "join A B C; con A; expect CE A 0; reg B 2; expect RE B 0;"
     "B tar 5; expect G B 5; A tar 5; expect G A 5; A tara 5; expect G A 5;"
     "reg C 1; expect RE C 0; bound C 5s; C send 5 A !EBOUND;"
     "A nera 5; expect G A 5; bound C 5s"},
    /* as tm-12.2 with lookaheads, and the promise lapses when A stops being constrained */
    {"tm-12.5", "TAR(T) then NERA(T) with L > 0; a promise ends with constrained",
     "join A B C D; con A; expect CE A 0; reg B 3; expect RE B 0;"
     "B tar 4; expect G B 4; A tar 4; expect G A 4; A nera 4; expect G A 4;"
     "reg C 2; expect RE C 0; bound C 4s;"
     "uncon A; con A; expect CE A 4; reg D 1; expect RE D 0; bound D 4n"},
    /* A: not constrained, advances alone, then asks to be constrained (pending: B at 0 holds
     * it) and, while that is pending, enables regulation: accepted (doc/time.md §8) */
    {"tm-12.6", "choice: enabling regulation while enabling constrained is pending is accepted",
     "join A B; reg B 0; expect RE B 0;"
     "A tar 5; expect G A 5; con A; expect;"
     "reg A 1; expect RE A 5; bound A 6n; galt B 6n;"
     "A tar 6 !EPENDING; B tar 5; expect CE A 5, G B 5"},

    /* ---- tm-11: infinity and saturation (doc/time.md: TP_TIME_MAX is +inf) -------------- */
    /* A TAR(+inf) at L = 1: its bound saturates to infinity */
    {"tm-11.1", "T + L saturates; TAR(+inf) is granted only when GALT is infinite",
     "join A B; rc A 1; rc B 1;"
     "A tar 9223372036854775807; expect; bound A inf; galt B inf;"
     "B tar 5; expect G B 5; unreg B; expect G A 9223372036854775807; time A 9223372036854775807"},
    /* A with an infinite lookahead never holds anyone back and may send nothing */
    {"tm-11.2", "lookahead +inf: bound infinite, every TSO send refused",
     "join A B; rc A 9223372036854775807; rc B 0; bound A inf; galt B inf;"
     "B tar 100; expect G B 100; A send 5 B !EBOUND"},
    /* A NER(+inf) with a message queued at 7 */
    {"tm-11.3", "NER(+inf) is granted the smallest queued time stamp",
     "join A B; rc A 0; rc B 0; B send 7 A; A ner 9223372036854775807; expect;"
     "B tar 10; expect D A m1@7, G A 7; lits A inf"},
    /* issue 37: both granted TAR(+inf); a TSO send at +inf once reached B's past and the
     * engine's assert stopped the RTI. Refused, nothing delivered, the state unchanged. */
    {"tm-11.4", "further rules: no TSO send at +inf, even after a grant to +inf (doc/time.md §2)",
     "join A B; rc A 0; rc B 0;"
     "A tar 9223372036854775807; B tar 9223372036854775807;"
     "expect G A 9223372036854775807, G B 9223372036854775807;"
     "A send 9223372036854775807 B !EBOUND; errmsg never sends at +inf; expect; lits B inf;"
     "B send 9223372036854775807 A !EBOUND; A ro B; expect R B m1"},
    /* the same after TARA(+inf): B may take messages at its time, but nobody sends at +inf */
    {"tm-11.5", "further rules: no TSO send at +inf after TARA(+inf) either",
     "join A B; rc A 0; rc B 0;"
     "A tara 9223372036854775807; B tara 9223372036854775807;"
     "expect G A 9223372036854775807, G B 9223372036854775807;"
     "A send 9223372036854775807 B !EBOUND; expect; lits B inf"},
    /* a regulator below +inf may send up to TM_TIME_MAX - 1, never at TM_TIME_MAX */
    {"tm-11.6", "the largest TSO time stamp is TM_TIME_MAX - 1; a grant to +inf delivers it",
     "join A B; rc A 0; rc B 0;"
     "A send 9223372036854775807 B !EBOUND; A send 9223372036854775806 B; expect;"
     "lits B 9223372036854775806; A tar 9223372036854775807; B tar 9223372036854775807;"
     "expect G A 9223372036854775807, D B m1@9223372036854775806, G B 9223372036854775807"},
};

int main(void)
{
    size_t n = sizeof scenarios / sizeof scenarios[0];
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        check_case_begin(); /* one case per scenario (tests/check.h) */
        int f = sc_run(scenarios[i].id, scenarios[i].text);
        check_case_end(f == 0);
        if (f) {
            fprintf(stderr, "scenario %s (%s): %d check(s) failed\n", scenarios[i].id,
                    scenarios[i].rule, f);
            bad++;
        }
    }
    printf("%zu scenarios, %d failing\n", n, bad);
    CHECK(n >= 30, "at least 30 scenarios, have %zu", n);
    return check_summary();
}
