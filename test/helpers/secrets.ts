/** The JWT secret of every test app: fixtures sign user tokens with it without building an app. */
export const TEST_JWT_SECRET = "test-jwt-secret-0123456789abcdefghijklmnop";
