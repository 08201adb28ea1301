//! Solver work in forked child processes, killed at their deadline: Z3 4.8.12's own timeouts overrun by seconds and its timer pool can deadlock (Z3Prover/z3#5371, #5990).
//!
//! The child is a copy of the calling thread, so it sees the caller's thread-local Z3
//! context and its terms without any translation or serialisation. It writes one text
//! answer to a pipe and leaves with `_exit`. The parent never blocks on a child beyond its
//! deadline. Invariant: while a fork happens no other thread of the process may be inside
//! Z3 (a Z3 lock held at that instant would hang the child until its deadline); fpscout
//! uses Z3 from one thread only.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// What became of one task.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The child's answer.
    Done(String),
    /// Killed at its own time limit.
    TimedOut,
    /// Killed, or never started, because the overall deadline passed.
    OverBudget { started: bool },
    /// The child died without answering (signal, panic, or the fork failed).
    Failed(String),
}

struct Running {
    task: usize,
    pid: libc::pid_t,
    pipe: OwnedFd,
    answer: Vec<u8>,
    limit: Instant,
}

/// Runs `work(i)` for each task `i < tasks` in a forked child, at most `jobs` at a time,
/// each killed after `per_task` and all of them at `deadline`. Tasks start in index order.
pub fn run_forked(
    tasks: usize,
    jobs: usize,
    per_task: Duration,
    deadline: Option<Instant>,
    work: &dyn Fn(usize) -> String,
) -> Vec<Outcome> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; tasks];
    let mut running: Vec<Running> = Vec::new();
    let mut next = 0;
    loop {
        let now = Instant::now();
        let over = deadline.is_some_and(|d| now >= d);
        while !over && next < tasks && running.len() < jobs.max(1) {
            match spawn(next, now + per_task, work) {
                Ok(r) => running.push(r),
                Err(e) => outcomes[next] = Some(Outcome::Failed(e)),
            }
            next += 1;
        }
        if over {
            for r in running.drain(..) {
                kill(&r);
                outcomes[r.task] = Some(Outcome::OverBudget { started: true });
            }
            for o in outcomes.iter_mut().skip(next) {
                *o = Some(Outcome::OverBudget { started: false });
            }
            break;
        }
        if running.is_empty() {
            break;
        }
        wait_for_output(&mut running, deadline);
        let now = Instant::now();
        let mut i = 0;
        while i < running.len() {
            match drain(&mut running[i]) {
                Drain::Open if now >= running[i].limit => {
                    let r = running.swap_remove(i);
                    kill(&r);
                    outcomes[r.task] = Some(Outcome::TimedOut);
                }
                Drain::Open => i += 1,
                Drain::Closed => {
                    let r = running.swap_remove(i);
                    let task = r.task;
                    outcomes[task] = Some(reap(r));
                }
            }
        }
    }
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Outcome::Failed("no outcome".into())))
        .collect()
}

fn spawn(task: usize, limit: Instant, work: &dyn Fn(usize) -> String) -> Result<Running, String> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read_end, write_end) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: the child only runs `work` on its copy of this thread and then `_exit`s, so
    // no destructor or atexit handler of the parent runs twice.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        drop(read_end);
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(task)));
        let code = match answer {
            Ok(text) => {
                write_all(write_end.as_raw_fd(), text.as_bytes());
                0
            }
            Err(_) => 101,
        };
        // SAFETY: ends the child without unwinding into the parent's frames.
        unsafe { libc::_exit(code) };
    }
    drop(write_end);
    Ok(Running {
        task,
        pid,
        pipe: read_end,
        answer: Vec::new(),
        limit,
    })
}

fn write_all(fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to a descriptor this child owns.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Sleeps until some child has output or closed its pipe, or the earliest limit passes.
fn wait_for_output(running: &mut [Running], deadline: Option<Instant>) {
    let wake = running
        .iter()
        .map(|r| r.limit)
        .chain(deadline)
        .min()
        .unwrap_or_else(Instant::now);
    let ms = wake
        .saturating_duration_since(Instant::now())
        .as_millis()
        .min(i32::MAX as u128) as i32;
    let mut fds: Vec<libc::pollfd> = running
        .iter()
        .map(|r| libc::pollfd {
            fd: r.pipe.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `fds` is a live array of `fds.len()` pollfd records.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms.max(1)) };
}

enum Drain {
    Open,
    Closed,
}

/// Reads whatever the child has written without blocking.
fn drain(r: &mut Running) -> Drain {
    let fd = r.pipe.as_raw_fd();
    let mut buf = [0u8; 4096];
    loop {
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
        r.answer.extend_from_slice(&buf[..n as usize]);
    }
}

fn kill(r: &Running) {
    // SAFETY: `pid` is our own child, not yet reaped, so the id cannot have been reused.
    unsafe {
        libc::kill(r.pid, libc::SIGKILL);
        libc::waitpid(r.pid, std::ptr::null_mut(), 0);
    }
}

fn reap(r: Running) -> Outcome {
    let mut status = 0;
    // SAFETY: waits for our own child, whose pipe has closed, so it is exiting.
    unsafe { libc::waitpid(r.pid, &mut status, 0) };
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Outcome::Done(String::from_utf8_lossy(&r.answer).into_owned())
    } else if libc::WIFSIGNALED(status) {
        Outcome::Failed(format!(
            "solver child killed by signal {}",
            libc::WTERMSIG(status)
        ))
    } else {
        Outcome::Failed(format!(
            "solver child exited with status {}",
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
