/**
 * Test only: what the test Worker's git host (git.egress.test, served by its
 * Outbound entrypoint) and its stand-in for GitHub's sign-in answer, shared
 * with the tests that check them. Plain values, so Node tests can import them.
 */
export const TEST_REPOSITORY_HOST = "git.egress.test";
export const TEST_REPOSITORY_PATH = "/repo.git";
export const TEST_REPOSITORY_FILE = { name: "README.md", text: "Cloned from the test handler.\n" };
export const TEST_REPOSITORY_SUBJECT = "Served by the test handler";
/** The same repository at /private.git answers only requests with this token as basic auth (user "git"). */
export const TEST_PRIVATE_PATH = "/private.git";
export const TEST_TOKEN = "test-token-Zq8X2mPp7Lw4Rr9Tt1Vv";

export const FAKE_GITHUB_CLIENT_ID = "test-github-client";
export const FAKE_GITHUB_USER_CODE = "TEST-1234";
export const FAKE_GITHUB_TOKEN = "gho_fakeTokenFromTheTestWorker0123456789";
