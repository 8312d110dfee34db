import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadMark, LoadProbe } from './cpu-load.js';

/** What runInterleaved asks before and after each measured round. */
export interface RoundGate {
  /** Before a measured round: wait, within bounds, until the machine is quiet enough. */
  before(): Promise<void>;
  /** After the round: true to throw it away and run it again (other load disturbed it). */
  after(): boolean;
}

export interface QuietOptions {
  /** undefined where the machine's load cannot be read: nothing is waited for or redone. */
  probe: LoadProbe | undefined;
  /** Share of the machine's CPU used by other processes above which a round is disturbed. */
  threshold?: number;
  /** Time the whole bench may spend waiting for quiet and on rounds thrown away. */
  budgetMs: number;
  /** Longest wait before one round. */
  maxWaitMs?: number;
  /** Window of one look at the machine while waiting. */
  checkMs?: number;
  /** Times one round may be redone. */
  maxRedos?: number;
  /** Told once per comparison when the gate gives up. */
  log?(line: string): void;
  sleep?(ms: number): Promise<void>;
}

/**
 * 0.1 of the machine is a fifth of a core on two cores: a neighbour using more than that
 * takes CPU time from the two threads a comparison runs on (reader and server).
 */
export const DEFAULT_QUIET_THRESHOLD = 0.1;

const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * Waits for a quiet machine before each measured round and redoes a round that other
 * processes disturbed, within a time budget shared by the whole bench, so the bench
 * always stops by itself: when the budget is spent it measures anyway and says so in
 * the rows' notes. It looks at the machine only when the last round it saw was
 * disturbed, so a quiet machine pays nothing for it.
 */
export class QuietGate implements RoundGate {
  private readonly threshold: number;
  private readonly maxWaitMs: number;
  private readonly checkMs: number;
  private readonly maxRedos: number;
  private readonly pause: (ms: number) => Promise<void>;
  private spentMs = 0;
  private lastShare = 0;
  private start: LoadMark | undefined;
  private redosThisRound = 0;
  // Per comparison, reset by takeNote().
  private rounds = 0;
  private disturbedKept = 0;
  private worstKept = 0;
  private redone = 0;
  private gaveUp = false;

  constructor(private readonly options: QuietOptions) {
    this.threshold = options.threshold ?? DEFAULT_QUIET_THRESHOLD;
    this.maxWaitMs = options.maxWaitMs ?? 15_000;
    this.checkMs = options.checkMs ?? 250;
    this.maxRedos = options.maxRedos ?? 2;
    this.pause = options.sleep ?? ((ms) => sleep(ms));
  }

  /** Milliseconds of the budget spent so far. */
  get spent(): number {
    return this.spentMs;
  }

  private budgetLeft(): number {
    return this.options.budgetMs - this.spentMs;
  }

  /** Look at the machine for a while; the share other processes used meanwhile. */
  async look(): Promise<number> {
    const probe = this.options.probe;
    if (!probe) return 0;
    const from = probe.mark();
    await this.pause(this.checkMs);
    this.lastShare = probe.othersShare(from, probe.mark());
    return this.lastShare;
  }

  async before(): Promise<void> {
    const probe = this.options.probe;
    if (!probe) return;
    if (this.lastShare > this.threshold) {
      const started = performance.now();
      const waited = () => performance.now() - started;
      while (waited() < Math.min(this.maxWaitMs, this.budgetLeft())) {
        if ((await this.look()) <= this.threshold) break;
      }
      this.spentMs += waited();
      if (this.lastShare > this.threshold) {
        this.giveUp(`other processes used ${percent(this.lastShare)} of the CPUs`);
      }
    }
    this.start = probe.mark();
  }

  after(): boolean {
    const probe = this.options.probe;
    if (!probe || this.start === undefined) return false;
    const end = probe.mark();
    const share = probe.othersShare(this.start, end);
    this.lastShare = share;
    if (share <= this.threshold) {
      this.keep();
      return false;
    }
    const took = end.at - this.start.at;
    if (this.redosThisRound < this.maxRedos && this.budgetLeft() > 0 && this.budgetLeft() >= took) {
      this.redosThisRound++;
      this.redone++;
      this.spentMs += took;
      return true;
    }
    if (this.redosThisRound >= this.maxRedos) this.giveUp(`still disturbed after ${this.maxRedos} redos`);
    else this.giveUp('no time left to redo');
    this.disturbedKept++;
    this.worstKept = Math.max(this.worstKept, share);
    this.keep();
    return false;
  }

  private keep(): void {
    this.rounds++;
    this.redosThisRound = 0;
  }

  private giveUp(why: string): void {
    if (this.gaveUp) return;
    this.gaveUp = true;
    const budget = this.budgetLeft() <= 0 ? ' (waiting budget spent)' : '';
    this.options.log?.(`  quiet machine: gave up waiting, ${why}${budget}; measuring under load`);
  }

  /**
   * What the rows of the comparison just measured should say about the machine, or
   * undefined when every round ran quiet. Resets the per-comparison counts.
   */
  takeNote(): string | undefined {
    const parts: string[] = [];
    if (this.disturbedKept > 0) {
      parts.push(
        `${this.disturbedKept} of ${this.rounds} rounds measured while other processes used up to ` +
          `${percent(this.worstKept)} of the CPUs (gave up waiting for a quiet machine)`,
      );
    }
    if (this.redone > 0) parts.push(`${this.redone} disturbed round${this.redone === 1 ? '' : 's'} redone`);
    this.rounds = 0;
    this.disturbedKept = 0;
    this.worstKept = 0;
    this.redone = 0;
    this.gaveUp = false;
    return parts.length === 0 ? undefined : parts.join('; ');
  }
}
