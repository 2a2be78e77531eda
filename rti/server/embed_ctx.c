/* The context switch of the embedded RTI's task mode (embed_impl.h; the scheduler is
 * embed_task.c). Serves doc/inproc.md ("How it works", tasks). Read rti/server/embed_task.c next.
 *
 * On x86-64 a task switch saves the callee-saved registers, the SSE and x87 control words on
 * the old stack, stores its stack pointer and loads the other's: about 20 instructions and no
 * system call. glibc's swapcontext also saves the signal mask with rt_sigprocmask, a system
 * call per switch, which on this project's VMs was 40 % of an in-process macro step (perf).
 * Tasks never change the signal mask (doc/inproc.md), so it need not follow them. Other
 * architectures use ucontext (-DEMBED_UCONTEXT chooses it on x86-64 too). */
#include <stdint.h>
#include <string.h>

#include "rti/server/embed_impl.h"

#if defined(__x86_64__) && !defined(EMBED_UCONTEXT) /* -DEMBED_UCONTEXT: the portable path */
void tempo_embed_switch(void **save_sp, void *load_sp);
__asm__(".pushsection .text\n"
        ".globl tempo_embed_switch\n"
        ".hidden tempo_embed_switch\n"
        ".type tempo_embed_switch,@function\n"
        "tempo_embed_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size tempo_embed_switch, .-tempo_embed_switch\n"
        ".popsection\n");

void embed_ctx_switch(struct embed_ctx *save, struct embed_ctx *load)
{
    tempo_embed_switch(&save->sp, load->sp);
}

/* A new context that starts in entry() on the stack [stack, stack + size): the frame
 * tempo_embed_switch pops (control words, six registers, the return address = entry),
 * aligned so that entry sees the stack the ABI promises a called function. */
void embed_ctx_make(struct embed_ctx *c, void *stack, size_t size, void (*entry)(void),
                    struct embed_ctx *back)
{
    (void)back;
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 16);
    sp[0] = (uint64_t)(uintptr_t)entry; /* address A, A % 16 == 0: popped by ret */
    sp[1] = 0;                          /* what entry sees as its return address */
    sp -= 6;                            /* r15 r14 r13 r12 rbx rbp (zero) */
    for (int i = 0; i < 6; i++)
        sp[i] = 0;
    /* MXCSR and the x87 control word of the thread that makes the task (rounding, flush to
     * zero, exception masks): a task computes as the same code would on that thread, as the
     * ucontext path and the thread mode do. */
    uint32_t mxcsr = 0;
    uint16_t fcw = 0;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));
    uint32_t words[2] = {mxcsr, fcw};
    sp -= 1;
    memcpy(sp, words, sizeof words);
    c->sp = sp;
}
#else

void embed_ctx_switch(struct embed_ctx *save, struct embed_ctx *load)
{
    swapcontext(&save->uc, &load->uc);
}

void embed_ctx_make(struct embed_ctx *c, void *stack, size_t size, void (*entry)(void),
                    struct embed_ctx *back)
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = &back->uc;
    makecontext(&c->uc, entry, 0);
}
#endif
