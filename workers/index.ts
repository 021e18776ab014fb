import { app } from "./app";

export { AccountLedger } from "./ledger/account-ledger";
export default app;
