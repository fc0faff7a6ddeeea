const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR = '\r\u001b[K';

/**
 * A one-line activity indicator on stderr ("⠋ thinking…") while the model or a tool works. Drawn
 * only when enabled (stderr is a terminal); it erases itself before anything else is printed.
 *
 * @example
 * const spinner = new Spinner((t) => process.stderr.write(t), process.stderr.isTTY);
 * spinner.start('thinking'); ...; spinner.stop();
 */
export class Spinner {
  readonly #write: (text: string) => void;
  readonly #enabled: boolean;
  #timer: NodeJS.Timeout | undefined;
  #label = '';
  #frame = 0;
  #shown = false;
  #held = false;

  constructor(write: (text: string) => void, enabled: boolean) {
    this.#write = write;
    this.#enabled = enabled;
  }

  /** Shows (or relabels) the indicator; the first frame comes after a short wait, so quick steps show nothing. */
  start(label: string): void {
    if (!this.#enabled || this.#held) return;
    this.#label = label;
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#draw(), 80);
    this.#timer.unref();
  }

  /** Erases the indicator and stops drawing it. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#shown) this.#write(CLEAR);
    this.#shown = false;
  }

  /** Stops it and keeps it off until {@link release}: a prompt owns the line meanwhile. */
  hold(): void {
    this.stop();
    this.#held = true;
  }

  /** Lets {@link start} draw again after {@link hold}. */
  release(): void {
    this.#held = false;
  }

  #draw(): void {
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.#write(`${CLEAR}${FRAMES[this.#frame]} ${this.#label}…`);
    this.#shown = true;
  }
}
