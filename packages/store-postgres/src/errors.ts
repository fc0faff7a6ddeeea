/** An operation the PostgreSQL store refuses: a missing or already taken session. The message names it. */
export class PostgresStoreError extends Error {
  /** The session concerned. */
  readonly sessionId: string;

  constructor(sessionId: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.sessionId = sessionId;
  }
}
