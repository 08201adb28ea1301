//! Solver work in forked child processes, killed at their deadline: Z3 4.8.12's own timeouts overrun by seconds and its timer pool can deadlock (Z3Prover/z3#5371, #5990).
//!
//! The child is a copy of the calling thread, so it sees the caller's thread-local Z3
//! context and its terms without any translation or serialisation. It answers task after
//! task over a pipe (text answers) until it is killed: at its task's time limit, at the
//! deadline, or when the batch is done. A task's time limit is processor time (the child
//! arms a profiling timer whose signal ends it), so that a query's verdict does not depend
//! on how loaded the machine is; the parent kills a child at `WALL_SLACK` times the limit
//! of wall time as well, for a child that waits instead of computing. The parent never blocks on a child beyond its
//! deadline. Invariant: while a fork happens no other thread of the process may be inside
//! Z3 (a Z3 lock held at that instant would hang the child until its deadline); fpscout
//! uses Z3 from one thread only.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Wall time a task may take per unit of its processor-time limit before the parent
/// kills it (a loaded machine gives a child a share of a core).
const WALL_SLACK: u32 = 4;

/// What became of one task.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The child's answer.
    Done(String),
    /// Ended at its own time limit (processor time, or the wall-time backstop).
    TimedOut,
    /// Killed, or never started, because the overall deadline passed.
    OverBudget { started: bool },
    /// The child died without answering (signal, panic, or the fork failed).
    Failed(String),
}

/// A forked worker: a copy of the calling thread that answers tasks one at a time. Forking
/// a process that holds a large term DAG costs milliseconds (page tables), as much as many
/// queries; a worker pays it once for all the tasks it answers.
struct Worker {
    /// 0 once reaped.
    pid: libc::pid_t,
    /// Tasks to the worker: an 8-byte index, then the 8-byte processor-time limit in µs.
    tasks: OwnedFd,
    /// Answers from the worker: an 8-byte length, then the text.
    answers: OwnedFd,
    buf: Vec<u8>,
    /// The position (in the batch) of the task being answered and its time limit.
    current: Option<(usize, Instant)>,
}

/// Runs `work(i)` for each task `i < tasks` in forked children, at most `jobs` at a time,
/// each task killed (with its child) after `per_task` and all of them at `deadline`.
/// Tasks start in index order.
pub fn run_forked(
    tasks: usize,
    jobs: usize,
    per_task: Duration,
    deadline: Option<Instant>,
    work: &dyn Fn(usize) -> String,
) -> Vec<Outcome> {
    let all: Vec<usize> = (0..tasks).collect();
    Pool::new(jobs, per_task, Box::new(work)).run(&all, deadline)
}

/// Worker children kept across batches of tasks: forked on demand (after every term the
/// tasks will read exists, since a child sees the parent as it was when forked), killed
/// with a task past its limit, at a deadline, or when the pool is dropped.
pub struct Pool<'w> {
    jobs: usize,
    per_task: Duration,
    work: Box<dyn Fn(usize) -> String + 'w>,
    workers: Vec<Worker>,
}

impl<'w> Pool<'w> {
    pub fn new(jobs: usize, per_task: Duration, work: Box<dyn Fn(usize) -> String + 'w>) -> Self {
        Pool {
            jobs: jobs.max(1),
            per_task,
            work,
            workers: Vec::new(),
        }
    }

    /// The time limit of each task from the next run on.
    pub fn set_per_task(&mut self, per_task: Duration) {
        self.per_task = per_task;
    }

    /// Runs `work(t)` for each `t` of `tasks`, in order; one outcome per task.
    pub fn run(&mut self, tasks: &[usize], deadline: Option<Instant>) -> Vec<Outcome> {
        let mut outcomes: Vec<Option<Outcome>> = vec![None; tasks.len()];
        let mut next = 0;
        loop {
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                // Busy workers are mid-task: killed with it; idle ones stay for later.
                let (busy, idle): (Vec<Worker>, Vec<Worker>) = std::mem::take(&mut self.workers)
                    .into_iter()
                    .partition(|w| w.current.is_some());
                for w in &busy {
                    if let Some((k, _)) = w.current {
                        outcomes[k] = Some(Outcome::OverBudget { started: true });
                    }
                }
                self.workers = idle;
                for o in outcomes.iter_mut().skip(next) {
                    *o = Some(Outcome::OverBudget { started: false });
                }
                break;
            }
            while next < tasks.len() {
                let idle = match self.workers.iter().position(|w| w.current.is_none()) {
                    Some(i) => i,
                    None if self.workers.len() < self.jobs => match spawn(&*self.work) {
                        Ok(w) => {
                            self.workers.push(w);
                            self.workers.len() - 1
                        }
                        Err(e) => {
                            outcomes[next] = Some(Outcome::Failed(e));
                            next += 1;
                            continue;
                        }
                    },
                    None => break,
                };
                let w = &mut self.workers[idle];
                let limit_us = self.per_task.as_micros().min(u64::MAX as u128) as u64;
                let message = [(tasks[next] as u64).to_le_bytes(), limit_us.to_le_bytes()].concat();
                if write_all(w.tasks.as_raw_fd(), &message) {
                    w.current = Some((next, now + self.per_task * WALL_SLACK));
                } else {
                    let w = self.workers.swap_remove(idle);
                    outcomes[next] = Some(reap(w));
                }
                next += 1;
            }
            if self.workers.iter().all(|w| w.current.is_none()) {
                break;
            }
            wait_for_output(&self.workers, deadline);
            let now = Instant::now();
            let mut i = 0;
            while i < self.workers.len() {
                let Some((k, limit)) = self.workers[i].current else {
                    i += 1;
                    continue;
                };
                match drain(&mut self.workers[i]) {
                    Drain::Answered(text) => {
                        outcomes[k] = Some(Outcome::Done(text));
                        self.workers[i].current = None;
                        i += 1;
                    }
                    Drain::Open if now >= limit => {
                        self.workers.swap_remove(i);
                        outcomes[k] = Some(Outcome::TimedOut);
                    }
                    Drain::Open => i += 1,
                    Drain::Closed => {
                        let w = self.workers.swap_remove(i);
                        outcomes[k] = Some(reap(w));
                    }
                }
            }
        }
        outcomes
            .into_iter()
            .map(|o| o.unwrap_or_else(|| Outcome::Failed("no outcome".into())))
            .collect()
    }
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just created and are owned here alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn spawn(work: &dyn Fn(usize) -> String) -> Result<Worker, String> {
    let (task_read, task_write) = pipe()?;
    let (answer_read, answer_write) = pipe()?;
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the child only runs `work` on its copy of this thread and then `_exit`s, so
    // no destructor or atexit handler of the parent runs twice.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // A worker deep in one query reads no pipe: were the parent killed (a time limit
        // of the caller, ^C), it would run on for minutes. The kernel ends it with the
        // parent instead; the check covers a parent that died before the request.
        // SAFETY: prctl and getppid only affect this process.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::_exit(0);
            }
        }
        drop(task_write);
        drop(answer_read);
        serve(task_read.as_raw_fd(), answer_write.as_raw_fd(), work);
    }
    Ok(Worker {
        pid,
        tasks: task_write,
        answers: answer_read,
        buf: Vec::new(),
        current: None,
    })
}

/// The worker's loop: a task and its limit in, its answer out, until the task pipe closes.
fn serve(tasks: i32, answers: i32, work: &dyn Fn(usize) -> String) -> ! {
    loop {
        let mut message = [0u8; 16];
        if !read_exact(tasks, &mut message) {
            // SAFETY: ends the child without unwinding into the parent's frames.
            unsafe { libc::_exit(0) };
        }
        let [index, limit] = [&message[..8], &message[8..]]
            .map(|bytes| u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])));
        let task = index as usize;
        arm_processor_timer(limit);
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(task)));
        arm_processor_timer(0);
        let Ok(text) = answer else {
            // SAFETY: as above; the parent reports the status.
            unsafe { libc::_exit(101) };
        };
        let framed = [&(text.len() as u64).to_le_bytes()[..], text.as_bytes()].concat();
        if !write_all(answers, &framed) {
            // SAFETY: as above.
            unsafe { libc::_exit(0) };
        }
    }
}

/// Ends this process (SIGPROF's default action) once it has used `micros` of processor
/// time from now; 0 disarms.
fn arm_processor_timer(micros: u64) {
    let timer = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: (micros / 1_000_000) as libc::time_t,
            tv_usec: (micros % 1_000_000) as libc::suseconds_t,
        },
    };
    // SAFETY: sets this process's profiling timer from a live record; the old value is
    // not asked for.
    unsafe { libc::setitimer(libc::ITIMER_PROF, &timer, std::ptr::null_mut()) };
}

fn read_exact(fd: i32, mut buf: &mut [u8]) -> bool {
    while !buf.is_empty() {
        // SAFETY: reads into a live buffer of its own length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return false;
        }
        buf = &mut buf[n as usize..];
    }
    true
}

fn write_all(fd: i32, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to a descriptor this process owns.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

/// Sleeps until some busy worker has output or closed its pipe, or the earliest limit
/// passes.
fn wait_for_output(workers: &[Worker], deadline: Option<Instant>) {
    let busy: Vec<&Worker> = workers.iter().filter(|w| w.current.is_some()).collect();
    let wake = busy
        .iter()
        .filter_map(|w| w.current.map(|(_, limit)| limit))
        .chain(deadline)
        .min()
        .unwrap_or_else(Instant::now);
    let ms = wake
        .saturating_duration_since(Instant::now())
        .as_millis()
        .min(i32::MAX as u128) as i32;
    let mut fds: Vec<libc::pollfd> = busy
        .iter()
        .map(|w| libc::pollfd {
            fd: w.answers.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `fds` is a live array of `fds.len()` pollfd records.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms.max(1)) };
}

enum Drain {
    Open,
    Answered(String),
    Closed,
}

/// Reads whatever the worker has written without blocking.
fn drain(w: &mut Worker) -> Drain {
    let fd = w.answers.as_raw_fd();
    let mut buf = [0u8; 4096];
    loop {
        if w.buf.len() >= 8 {
            let len = u64::from_le_bytes(w.buf[..8].try_into().unwrap_or([0; 8])) as usize;
            if w.buf.len() >= 8 + len {
                let text = String::from_utf8_lossy(&w.buf[8..8 + len]).into_owned();
                w.buf.drain(..8 + len);
                return Drain::Answered(text);
            }
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one live pollfd record, zero timeout.
        let ready = unsafe { libc::poll(&mut pfd, 1, 0) };
        if ready <= 0 || pfd.revents == 0 {
            return Drain::Open;
        }
        // SAFETY: reads into a live buffer of its own length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return Drain::Closed;
        }
        w.buf.extend_from_slice(&buf[..n as usize]);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.pid <= 0 {
            return;
        }
        // SAFETY: `pid` is our own child, not yet reaped (`reap` clears it), so the id
        // cannot have been reused.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// How a worker that closed its answer pipe mid-task ended.
fn reap(mut w: Worker) -> Outcome {
    let mut status = 0;
    // SAFETY: waits for our own child, whose pipe has closed, so it is exiting.
    unsafe { libc::waitpid(w.pid, &mut status, 0) };
    w.pid = 0;
    if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGPROF {
        Outcome::TimedOut
    } else if libc::WIFSIGNALED(status) {
        Outcome::Failed(format!(
            "solver child killed by signal {}",
            libc::WTERMSIG(status)
        ))
    } else {
        Outcome::Failed(format!(
            "solver child exited with status {} without answering",
            libc::WEXITSTATUS(status)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_come_back_in_task_order() {
        let out = run_forked(5, 2, Duration::from_secs(10), None, &|i| {
            format!("task {i}")
        });
        let want: Vec<Outcome> = (0..5).map(|i| Outcome::Done(format!("task {i}"))).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn one_child_answers_task_after_task() {
        let out = run_forked(6, 1, Duration::from_secs(10), None, &|_| {
            std::process::id().to_string()
        });
        let first = out[0].clone();
        assert!(out.iter().all(|o| *o == first), "{out:?}");
        assert_ne!(first, Outcome::Done(std::process::id().to_string()));
    }

    #[test]
    fn a_pool_keeps_its_workers_across_batches() {
        let mut pool = Pool::new(
            1,
            Duration::from_secs(10),
            Box::new(|i| format!("{i} {}", std::process::id())),
        );
        let first = pool.run(&[3, 1], None);
        let second = pool.run(&[7], None);
        let pid = |o: &Outcome| match o {
            Outcome::Done(t) => t.split(' ').nth(1).unwrap_or_default().to_string(),
            other => panic!("{other:?}"),
        };
        assert!(matches!(&first[0], Outcome::Done(t) if t.starts_with("3 ")));
        assert!(matches!(&first[1], Outcome::Done(t) if t.starts_with("1 ")));
        assert!(matches!(&second[0], Outcome::Done(t) if t.starts_with("7 ")));
        assert_eq!(pid(&first[0]), pid(&second[0]));
    }

    #[test]
    fn a_child_past_its_limit_is_killed_and_the_rest_still_answer() {
        let t0 = Instant::now();
        let out = run_forked(3, 2, Duration::from_millis(200), None, &|i| {
            if i == 1 {
                std::thread::sleep(Duration::from_secs(30));
            }
            "ok".into()
        });
        assert_eq!(out[0], Outcome::Done("ok".into()));
        assert_eq!(out[1], Outcome::TimedOut);
        assert_eq!(out[2], Outcome::Done("ok".into()));
        assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    }

    #[test]
    fn a_computing_child_ends_at_its_processor_time_limit() {
        let t0 = Instant::now();
        let out = run_forked(2, 1, Duration::from_millis(100), None, &|i| {
            if i == 0 {
                let mut x = 0u64;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            "ok".into()
        });
        assert_eq!(out, vec![Outcome::TimedOut, Outcome::Done("ok".into())]);
        // Well before the wall-time backstop on an idle machine, and a new child answered.
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    }

    #[test]
    fn the_overall_deadline_stops_running_and_unstarted_tasks() {
        let deadline = Instant::now() + Duration::from_millis(300);
        let out = run_forked(4, 1, Duration::from_secs(60), Some(deadline), &|_| {
            std::thread::sleep(Duration::from_secs(30));
            "late".into()
        });
        assert_eq!(out[0], Outcome::OverBudget { started: true });
        assert!(out[1..]
            .iter()
            .all(|o| *o == Outcome::OverBudget { started: false }));
    }

    #[test]
    fn a_panicking_child_is_a_failure_not_an_answer() {
        let out = run_forked(1, 1, Duration::from_secs(10), None, &|_| panic!("boom"));
        assert!(
            matches!(&out[0], Outcome::Failed(m) if m.contains("101")),
            "{out:?}"
        );
    }

    #[test]
    fn large_answers_are_read_whole() {
        let big = "x".repeat(1 << 20);
        let out = run_forked(1, 1, Duration::from_secs(10), None, &|_| big.clone());
        assert_eq!(out[0], Outcome::Done(big));
    }
}
