import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

/**
 * The SDK's validator of tool output schemas, except that a schema it cannot compile (no valid
 * JSON Schema, or nested past the call stack) fails each call of that tool with the reason, as a
 * broken input schema does: the SDK compiles every output schema while listing the tools, and one
 * bad tool failed the whole toolset, in words that named neither.
 */
export class OutputSchemaValidator implements jsonSchemaValidator {
  readonly #inner = new AjvJsonSchemaValidator();

  /** A validator for `schema`, or one that refuses every value, saying why the schema is unusable. */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    try {
      return this.#inner.getValidator<T>(schema);
    } catch (error) {
      const reason = error instanceof RangeError ? 'it is nested too deep' : (error as Error).message;
      const errorMessage = `the tool's outputSchema is not a valid JSON Schema (${reason}), so no answer can be checked against it`;
      return () => ({ valid: false, data: undefined, errorMessage });
    }
  }
}
