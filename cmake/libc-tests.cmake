# SPDX-License-Identifier: BSD-2-Clause
# The tests whose FreeBSD behaviour libkq gets from its replacements of C
# library functions (src/libc/, the option KQ_LIBC_REPLACEMENTS): they carry
# the ctest label `libc`, which a build without the replacements leaves out
# (`ctest -LE libc`; .ci/run).  They still run in the default build.
# docs/differences.md, "Built without the libc replacements", says what each
# group below gives up.  A test's variants (-static, -exact-eof, -ioctl,
# -ms-fallback) follow it.  Every other test must pass in both builds.
set(KQ_LIBC_TESTS
  # close(), dup2(), dup3(), close_range(), closefrom(), fclose(): a knote
  # dies with the first close of its number, a kqueue with the close of
  # its own (EBADF after it, its descriptors released, nothing left in
  # epoll), also for closes made by libraries and inside a signal handler
  change-fd-vs-user-ident kevent-bad-kq kevent-last-kqueue-guess
  kqueue-close-while-waiting kqueue-close-wakes-every-sleeper
  wake-torture-short
  kqueue-create-close kqueue-dup kqueue-fd-budget timer-fd-budget
  user-fd-budget vnode-many-files read-eventfd-many read-eventfd-reused-number
  read-unix-listen-many read-tcp-uring-emfile
  kqueue-fd-hidden kqueue-fd-hidden-raw-closed kqueue-fd-hidden-dup2 kqueue-fd-hidden-dup2-race kqueue-fd-numbers
  kqueue-fd-filters-hidden kqueue-fd-eventfd-hidden
  lifetime-hidden-numbers-in-library
  sandbox-signalfd-refused sandbox-eventfd-refused lifetime-close lifetime-close-filters
  lifetime-close-range lifetime-closefrom-fork-child-faults
  lifetime-close-thread lifetime-dup-close lifetime-dup2 lifetime-dup2-readd
  lifetime-nested-close lifetime-reuse lifetime-two-kqueues
  lifetime-close-many-kqueues lifetime-close-other-kqueue-busy
  lifetime-close-first-knotes
  lifetime-vfork-child-socket
  vnode-close vnode-close-fast vnode-idle-no-stale vnode-idle-number-reused
  vnode-idle-fork vnode-dir-delete-self-moved vnode-example-tail-f
  procfs-absent procfs-main-exited signal-storm-kevent-close
  signal-storm-kevent-in-close
  link-fully-static example-poll-to-kevent fuzz-replay
  lifetime-close-dlopen lifetime-close-in-library
  lifetime-close-range-in-library lifetime-dup2-in-library
  lifetime-eventfd-close-in-library lifetime-fclose-drops-knotes
  lifetime-kqueue-close-in-library lifetime-raw-close-eventfd
  lifetime-linked-library-order lifetime-linked-order-unseen-spawn
  # ... with the socket births (socket(), accept4(), dup(), fcntl(),
  # sendmsg() with SCM_RIGHTS): a close that frees its file, or does not;
  # an end of file of a private socket, which no copy can have outlived
  lifetime-close-after-dup lifetime-close-after-dup-in-library
  lifetime-close-after-dup2 lifetime-close-after-dupfd-cloexec
  lifetime-close-after-fork lifetime-close-after-scm-rights
  lifetime-close-after-setfd-spawn lifetime-close-private-accept4
  lifetime-close-private-socketpair lifetime-kqueue-raw-close-reused
  lifetime-close-private-inheritable lifetime-close-private-child-race
  lifetime-close-inheritable-child-holds interposed-popen-private
  lifetime-raw-close-socket-reborn lifetime-raw-close-reborn-in-library
  lifetime-raw-close-kept-error read-eof-private-socket
  # the first knote of a socket by birth, added without waiting for a
  # thread asleep in kevent()
  wake-add-fresh-asleep
  # a deleted knote's parked entry at end of file is gone before the next
  # sleep, and a close before it (of a private socket) removes it for free
  wait-deleted-eof-one-sleep wait-deleted-eof-many-one-sleep
  wait-poll-deleted-eof-close-free wait-poll-deleted-write-burst-free
  # getsockopt(), connect() and the read and write calls: the socket error
  # read for an EV_EOF record, or for a UDP socket's READ record, reaches
  # the program; receives on a UDP socket read by `data` are counted, so
  # no datagram is left without a record
  read-udp-recverr-queue read-udp-clear-drain-by-data read-tcp-reset lifetime-reset-error-recvmmsg lifetime-reset-error-sendmmsg
  lifetime-reset-error-splice signal-storm-kept-error
  lifetime-connect-error-in-library lifetime-reset-error-in-library
  lifetime-so-error-in-library lifetime-fork-child-kept-error-in-library
  sockopt-like-glibc
  # sigaction(), signal(), sigset(), sigignore(), __sysv_signal(),
  # siginterrupt(): the program sees and changes its own disposition of a
  # watched signal, and libkq's handler stays (counting every send)
  fork-child-signal signal-delete-restores signal-handler-replaced
  signal-handler-runs signal-resethand signal-sighup-example
  signal-sigignore-watched signal-siginterrupt-knote signal-sigset-watched
  signal-sysv-signal-watched signal-ignore-discards-pending example-signals
  lifetime-signal-in-library
  # sigwait(), sigwaitinfo(), sigtimedwait(): a signal taken ends its
  # pending episode, so the next send is counted
  signal-blocked signal-disable-enable signal-nested-peek signal-not-consumed
  signal-pending-before signal-rt-blocked-sigwaitinfo
  signal-rt-blocked-kill-twice signal-self-sync
  signal-thread-directed signal-two-kqueues
  # posix_spawn(), system(), popen() and vfork(): children keep ignored
  # watched signals ignored; a vfork child's signal calls are its own
  signal-spawn-keeps-ignored signal-vfork-exec-keeps-ignored
  signal-system-ignored signal-popen-ignored
  # system(), popen(), pclose(): libkq's own, with glibc's contract
  spawn-system-like-glibc spawn-popen-like-glibc cancel-system-kills-child
  signal-vfork-child-disposition signal-vfork-child-exec
  # setrlimit(), prlimit(): the descriptor kept in reserve for eventfd
  # counts at the descriptor limit follows a soft limit the program lowers
  read-eventfd-emfile read-eventfd-emfile-prlimit read-eventfd-emfile-handler
  rlimit-like-glibc
  # all of them: errno is left alone when they succeed
  errno-kept-with-knotes)

# Gives the label to this directory's tests that are in the list (called at
# the end of each CMakeLists.txt that adds tests).
function(kq_libc_labels)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t ${tests})
    string(REGEX REPLACE "-(static|exact-eof|ioctl|ms-fallback)$" "" base "${t}")
    if(t IN_LIST KQ_LIBC_TESTS OR base IN_LIST KQ_LIBC_TESTS)
      set_property(TEST ${t} APPEND PROPERTY LABELS libc)
    endif()
  endforeach()
endfunction()
